#include "ktune/design/llm_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/tuning/interruption.hpp"

namespace ktune::design {
namespace {

using json = nlohmann::json;

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Ends a transfer when a stop was requested (Ctrl-C): a reply can take minutes.
int abort_on_stop(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) { return stop_requested() ? 1 : 0; }

std::string excerpt(const std::string& text, std::size_t limit = 500) {
  return text.size() <= limit ? text : text.substr(0, limit) + "...";
}

// What a server said in an error body: OpenAI's {"error": {"message": ...}}, else the body itself.
std::string server_message(const std::string& body) {
  try {
    const json doc = json::parse(body);
    if (doc.contains("error")) {
      const json& e = doc["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
      if (e.is_string()) return e.get<std::string>();
    }
  } catch (const json::exception&) {
  }
  return excerpt(body);
}

struct Response {
  CURLcode code = CURLE_OK;
  std::string curl_error;
  long status = 0;
  std::string body;
  double retry_after = 0;  // seconds, 0 if none
};

std::string bare_host_url(const std::string& url);

class OpenAiClient final : public LlmClient {
 public:
  explicit OpenAiClient(OpenAiClientOptions options) : options_(std::move(options)) {
    url_ = chat_completions_url(options_.url);
    // A bare host: servers differ in where they put the endpoint (/v1/chat/completions mostly, /chat/completions
    // too); a 404 from the first tries the other once.
    if (const std::string plain = bare_host_url(options_.url); !plain.empty()) fallback_url_ = plain;
    if (url_.rfind("http://", 0) != 0 && url_.rfind("https://", 0) != 0)
      throw LlmError(fmt::format("--llm-url '{}': an http:// or https:// URL is needed", options_.url));
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  LlmReply complete(const std::vector<ChatMessage>& messages) override {
    json body = {{"model", options_.model}, {"temperature", options_.temperature}, {"stream", false}};
    json list = json::array();
    for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(list);
    if (options_.max_tokens > 0) body["max_tokens"] = options_.max_tokens;
    const std::string payload = body.dump();

    const auto start = std::chrono::steady_clock::now();
    double wait = options_.backoff_seconds;
    for (int attempt = 1;; ++attempt) {
      const Response r = post(payload);
      std::string why;
      if (r.code == CURLE_ABORTED_BY_CALLBACK) throw LlmError("interrupted while waiting for the language model");
      if (r.code != CURLE_OK) {
        why = fmt::format("{} ({})", curl_easy_strerror(r.code), r.curl_error);
      } else if (r.status == 429 || r.status >= 500) {
        why = fmt::format("HTTP {}: {}", r.status, server_message(r.body));
      } else if (r.status == 404 && !fallback_url_.empty()) {
        url_ = fallback_url_;
        fallback_url_.clear();
        --attempt;  // not a retry: another address
        continue;
      } else if (r.status < 200 || r.status >= 300) {
        throw LlmError(fmt::format("{} refused the request: HTTP {}: {}", url_, r.status, server_message(r.body)));
      } else {
        LlmReply reply = parse(r.body);
        reply.attempts = attempt;
        reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return reply;
      }
      if (attempt > options_.retries)
        throw LlmError(fmt::format("{}: no reply after {} attempts; last: {}", url_, attempt, why));
      const double seconds = std::min(options_.max_backoff_seconds, std::max(wait, r.retry_after));
      if (options_.on_retry) options_.on_retry(attempt, seconds, why);
      sleep_unless_stopped(seconds);
      wait *= 2;
    }
  }

 private:
  static void sleep_unless_stopped(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (stop_requested()) throw LlmError("interrupted while waiting to retry the language model");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  Response post(const std::string& payload) const {
    Response r;
    CURL* curl = curl_easy_init();
    if (!curl) throw LlmError("libcurl could not start a request");
    char error[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (!options_.api_key.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + options_.api_key).c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a multi-threaded process
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_seconds * 1000));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "ktune-design");
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // any encoding libcurl decodes (gzip from a proxy)
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &abort_on_stop);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    r.code = curl_easy_perform(curl);
    r.curl_error = error;
    if (r.code == CURLE_OK) {
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
      curl_off_t retry_after = 0;
      if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
        r.retry_after = static_cast<double>(retry_after);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return r;
  }

  LlmReply parse(const std::string& body) const {
    json doc;
    if (auto streamed = from_event_stream(body)) {
      doc = std::move(*streamed);
    } else {
      try {
        doc = json::parse(body);
      } catch (const json::exception& e) {
        throw LlmError(fmt::format("{}: the reply is not JSON ({}): {}", url_, e.what(), excerpt(body)));
      }
    }
    const json* message = nullptr;
    if (doc.is_object() && doc.contains("choices") && doc["choices"].is_array() && !doc["choices"].empty()) {
      const json& choice = doc["choices"][0];
      if (choice.is_object() && choice.contains("message") && choice["message"].is_object())
        message = &choice["message"];
    }
    if (!message)
      throw LlmError(fmt::format("{}: not a chat completion (no choices[0].message): {}", url_, excerpt(body)));
    LlmReply reply;
    // A string, or a list of parts ({"type": "text", "text": ...}); null or absent (a refusal, a reply cut off
    // before any text) is an empty answer, which the design loop feeds back like any reply without code.
    const json content = message->value("content", json());
    if (content.is_string()) {
      reply.content = content.get<std::string>();
    } else if (content.is_array()) {
      for (const auto& part : content)
        if (part.is_object() && part.contains("text") && part["text"].is_string()) reply.content += part["text"].get<std::string>();
    }
    if (doc.contains("model") && doc["model"].is_string()) reply.model = doc["model"].get<std::string>();
    if (doc.contains("usage") && doc["usage"].is_object()) {
      const json& u = doc["usage"];
      if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer())
        reply.prompt_tokens = u["prompt_tokens"].get<std::int64_t>();
      if (u.contains("completion_tokens") && u["completion_tokens"].is_number_integer())
        reply.completion_tokens = u["completion_tokens"].get<std::int64_t>();
    }
    return reply;
  }

  // Some servers stream whatever the request says ("stream": false is sent): a server-sent event stream of
  // chat.completion.chunk objects ("data: {...}" lines, "data: [DONE]" last). Their deltas, joined, are the reply,
  // given back as the one chat completion it stands for; nullopt when the body is no event stream.
  std::optional<json> from_event_stream(const std::string& body) const {
    const std::size_t first = body.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || body.compare(first, 5, "data:") != 0) return std::nullopt;
    std::string content;
    json model, usage;
    std::size_t pos = first;
    while (pos < body.size()) {
      std::size_t end = body.find('\n', pos);
      if (end == std::string::npos) end = body.size();
      std::string line = body.substr(pos, end - pos);
      pos = end + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.rfind("data:", 0) != 0) continue;  // blank separators, "event:" and ":" comment lines
      const std::size_t at = line.find_first_not_of(' ', 5);
      const std::string payload = at == std::string::npos ? "" : line.substr(at);
      if (payload == "[DONE]") break;
      const json chunk = json::parse(payload, nullptr, false);
      if (chunk.is_discarded() || !chunk.is_object())
        throw LlmError(fmt::format("{}: an event of the streamed reply is not JSON: {}", url_, excerpt(payload)));
      if (chunk.contains("model") && chunk["model"].is_string()) model = chunk["model"];
      if (chunk.contains("usage") && chunk["usage"].is_object()) usage = chunk["usage"];
      if (!chunk.contains("choices") || !chunk["choices"].is_array() || chunk["choices"].empty()) continue;
      const json& choice = chunk["choices"][0];
      for (const char* part : {"delta", "message"})
        if (choice.is_object() && choice.contains(part) && choice[part].is_object()) {
          const json& text = choice[part].value("content", json());
          if (text.is_string()) content += text.get<std::string>();
        }
    }
    json doc = {{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", content}}}}})}};
    if (!model.is_null()) doc["model"] = model;
    if (!usage.is_null()) doc["usage"] = usage;
    return doc;
  }

  OpenAiClientOptions options_;
  std::string url_, fallback_url_;
};

// "scheme://host[:port]" with no path (or "/"): the fallback "scheme://host[:port]/chat/completions"; else "".
std::string bare_host_url(const std::string& url) {
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  const std::size_t scheme = u.find("://");
  if (scheme == std::string::npos || u.find('/', scheme + 3) != std::string::npos) return "";
  return u + "/chat/completions";
}

}  // namespace

std::string chat_completions_url(const std::string& url) {
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (!bare_host_url(u).empty()) return u + "/v1/chat/completions";
  const std::string suffix = "/chat/completions";
  if (u.size() >= suffix.size() && u.compare(u.size() - suffix.size(), suffix.size(), suffix) == 0) return u;
  return u + suffix;
}

std::unique_ptr<LlmClient> make_openai_client(OpenAiClientOptions options) {
  return std::make_unique<OpenAiClient>(std::move(options));
}

}  // namespace ktune::design

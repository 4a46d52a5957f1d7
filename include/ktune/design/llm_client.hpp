#pragma once
// A language model behind an OpenAI-compatible chat-completions endpoint: what llama.cpp's server, Ollama, vLLM and
// hosted services speak (POST {base}/chat/completions, {"model", "messages", "temperature"} -> choices[0].message).
// `ktune design` asks it for strategies; LlmClient is the small interface the design loop sees, so tests and other
// transports can stand in for it.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ktune::design {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct LlmReply {
  std::string content;
  std::string model;  // as the server names it ("" if it does not)
  std::int64_t prompt_tokens = -1, completion_tokens = -1;  // -1: not reported
  int attempts = 1;   // requests it took (retries included)
  double seconds = 0;
};

// The endpoint could not give a reply: refused (4xx other than 429), unreachable or overloaded after every retry, or
// a reply that is not a chat completion. The message names the URL and what the server said.
class LlmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // Throws LlmError.
  virtual LlmReply complete(const std::vector<ChatMessage>& messages) = 0;
};

struct OpenAiClientOptions {
  std::string url;      // base ("http://127.0.0.1:8080/v1") or the full ".../chat/completions"
  std::string model;
  std::string api_key;  // sent as "Authorization: Bearer KEY" when not empty
  double temperature = 0.8;
  std::int64_t max_tokens = 0;  // 0: not sent (the server's default)
  double timeout_seconds = 600;  // per request
  int retries = 5;               // further tries after a 429, a 5xx or a failed connection
  double backoff_seconds = 2;    // first wait; doubles per retry (a Retry-After header overrides when longer)
  double max_backoff_seconds = 120;
  // Told before each wait: attempt number (from 1), seconds, why. Progress lines.
  std::function<void(int, double, const std::string&)> on_retry;
};

// The chat-completions URL a base URL stands for: ".../chat/completions" is kept, a bare host gets
// "/v1/chat/completions" (and "/chat/completions" if that is a 404), anything else gets "/chat/completions" appended.
std::string chat_completions_url(const std::string& url);

// libcurl-based client. Throws LlmError for an unusable URL.
std::unique_ptr<LlmClient> make_openai_client(OpenAiClientOptions options);

}  // namespace ktune::design

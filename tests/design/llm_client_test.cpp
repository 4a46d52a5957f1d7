// The endpoint a --llm-url stands for, and a URL that is none. Requests, retries and reply shapes are tested against
// a scripted server in test_design_cli.py.
#include <gtest/gtest.h>

#include "ktune/design/llm_client.hpp"

namespace {

using namespace ktune::design;

TEST(LlmClient, ChatCompletionsUrl) {
  EXPECT_EQ(chat_completions_url("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://api.example.com/v1/chat/completions"),
            "https://api.example.com/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://localhost:11434"), "http://localhost:11434/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://localhost:11434/"), "http://localhost:11434/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://host/openai"), "http://host/openai/chat/completions");
}

TEST(LlmClient, RefusesAUrlThatIsNotHttp) {
  OpenAiClientOptions options;
  options.url = "127.0.0.1:8080/v1";
  EXPECT_THROW(make_openai_client(options), LlmError);
  options.url = "ftp://host/v1";
  EXPECT_THROW(make_openai_client(options), LlmError);
}

}  // namespace

#include "test_service.h"

#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <stdexcept>
#include <thread>

namespace ferry::test {
namespace {

using google::protobuf::Message;
using google::protobuf::StringValue;

const std::string& In(const Message& request) {
  return static_cast<const StringValue&>(request).value();
}
void Out(Message* response, std::string value) {
  static_cast<StringValue*>(response)->set_value(std::move(value));
}
TestService& Self(Service& service) { return static_cast<TestService&>(service); }

std::string ThisThreadName() {
  char name[32] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

// Leaves the response untouched for an empty request, so a test can tell whether the server
// hands each call a fresh response.
Status Echo(Service&, ServerContext&, const Message& request, Message* response) {
  if (!In(request).empty()) Out(response, In(request));
  return Status::Ok();
}

// An answer far larger than its request: as many 'x' as the request's decimal number says.
Status Repeat(Service&, ServerContext&, const Message& request, Message* response) {
  Out(response, std::string(std::stoul(In(request)), 'x'));
  return Status::Ok();
}

Status ThreadName(Service&, ServerContext&, const Message&, Message* response) {
  Out(response, ThisThreadName());
  return Status::Ok();
}

Status Block(Service& service, ServerContext&, const Message& request, Message* response) {
  Self(service).blocked.Increment();
  if (!Self(service).gate.WaitOpen()) return Status(StatusCode::ABORTED, "gate never opened");
  Out(response, In(request));
  return Status::Ok();
}

Status Count(Service& service, ServerContext&, const Message& request, Message* response) {
  Self(service).counted.Increment();
  Out(response, In(request));
  return Status::Ok();
}

Status Throw(Service&, ServerContext&, const Message&, Message*) {
  throw std::runtime_error("boom");
}

Status Context(Service&, ServerContext& context, const Message&, Message* response) {
  std::string out = std::string(context.service()) + "/" + std::string(context.method());
  out += " trace=" + context.trace_id();
  out += " call=" + std::to_string(context.request_id());
  out += " deadline=" + std::string(context.has_deadline() ? "yes" : "no");
  for (const auto& [key, value] : context.attachments()) out += " " + key + "=" + value;
  out += " peer=" + context.peer();
  if (!context.verified_caller().empty()) out += " caller=" + context.verified_caller();
  if (!context.auth_token().empty()) out += " token=" + context.auth_token();
  Out(response, std::move(out));
  return Status::Ok();
}

// Hands the call to a thread of its own, which answers with the request once the gate opens:
// an asynchronous handler that holds no server thread while it waits.
void Later(Service& service, ServerContext&, const Message& request, Message* response,
           ServerDone done) {
  Self(service).later_started.Increment();
  std::thread([&service, &request, response, done = std::move(done)]() mutable {
    if (!Self(service).gate.WaitOpen()) return done(Status(StatusCode::ABORTED, "gate shut"));
    Out(response, In(request));
    Self(service).later_answered.Increment();
    done(Status::Ok());
  }).detach();
}

// Returns without answering and lets go of its completion.
void Forget(Service&, ServerContext&, const Message&, Message*, ServerDone) {}

// Answers, then throws: the answer stands.
void AnswerThenThrow(Service&, ServerContext&, const Message& request, Message* response,
                     ServerDone done) {
  Out(response, In(request));
  done(Status::Ok());
  throw std::runtime_error("after the answer");
}

// Moves its completion into a scope that an exception it catches itself leaves: the completion
// is destroyed while that exception is in flight, and the handler returns normally.
void DropWhileCatching(Service&, ServerContext&, const Message&, Message*, ServerDone done) {
  try {
    ServerDone held = std::move(done);
    throw std::runtime_error("caught by the handler");
  } catch (const std::runtime_error&) {
  }
}

// Answers "overloaded" after it ran (counted): a status only the server may give, for a call it
// did not start.
void OverloadedAfterRunning(Service& service, ServerContext&, const Message&, Message*,
                            ServerDone done) {
  Self(service).ran_then_overloaded.Increment();
  done(Status(StatusCode::OVERLOADED, "too busy, says the handler"));
}

// A synchronous handler as the server invokes it, as generated code adapts one.
template <Status (*Handler)(Service&, ServerContext&, const Message&, Message*)>
void Sync(Service& service, ServerContext& context, const Message& request, Message* response,
          ServerDone done) {
  done(Handler(service, context, request, response));
}

const StringValue& Prototype() { return StringValue::default_instance(); }

constexpr MethodSpec kEcho{TestService::kName, "Echo"};
constexpr MethodSpec kInlineEcho{TestService::kName, "InlineEcho", true, true};
constexpr MethodSpec kThreadName{TestService::kName, "ThreadName"};
constexpr MethodSpec kRepeat{TestService::kName, "Repeat", false, true};
constexpr MethodSpec kInlineThreadName{TestService::kName, "InlineThreadName", true, true};
constexpr MethodSpec kBlock{TestService::kName, "Block"};
constexpr MethodSpec kCount{TestService::kName, "Count"};
constexpr MethodSpec kThrow{TestService::kName, "Throw"};
constexpr MethodSpec kContext{TestService::kName, "Context"};
constexpr MethodSpec kInlineContext{TestService::kName, "InlineContext", true, true};
constexpr MethodSpec kLater{TestService::kName, "Later"};
constexpr MethodSpec kInlineLater{TestService::kName, "InlineLater", true, true};
constexpr MethodSpec kForget{TestService::kName, "Forget"};
constexpr MethodSpec kAnswerThenThrow{TestService::kName, "AnswerThenThrow"};
constexpr MethodSpec kDropWhileCatching{TestService::kName, "DropWhileCatching"};
constexpr MethodSpec kInlineDropWhileCatching{TestService::kName, "InlineDropWhileCatching", true,
                                              true};
constexpr MethodSpec kOverloadedAfterRunning{TestService::kName, "OverloadedAfterRunning"};

}  // namespace

void Gate::Open() {
  {
    std::lock_guard lock(mu_);
    open_ = true;
  }
  cv_.notify_all();
}

bool Gate::WaitOpen(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, wait, [&] { return open_; });
}

void Counter::Increment() {
  {
    std::lock_guard lock(mu_);
    ++value_;
  }
  cv_.notify_all();
}

int Counter::value() {
  std::lock_guard lock(mu_);
  return value_;
}

bool Counter::WaitFor(int n, std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, wait, [&] { return value_ >= n; });
}

std::span<const Service::Method> TestService::methods() const {
  static const Method kMethods[] = {
      {&kEcho, &Prototype(), &Prototype(), &Sync<&Echo>},
      {&kInlineEcho, &Prototype(), &Prototype(), &Sync<&Echo>},
      {&kRepeat, &Prototype(), &Prototype(), &Sync<&Repeat>},
      {&kThreadName, &Prototype(), &Prototype(), &Sync<&ThreadName>},
      {&kInlineThreadName, &Prototype(), &Prototype(), &Sync<&ThreadName>},
      {&kBlock, &Prototype(), &Prototype(), &Sync<&Block>},
      {&kCount, &Prototype(), &Prototype(), &Sync<&Count>},
      {&kThrow, &Prototype(), &Prototype(), &Sync<&Throw>},
      {&kContext, &Prototype(), &Prototype(), &Sync<&Context>},
      {&kInlineContext, &Prototype(), &Prototype(), &Sync<&Context>},
      {&kLater, &Prototype(), &Prototype(), &Later},
      {&kInlineLater, &Prototype(), &Prototype(), &Later},
      {&kForget, &Prototype(), &Prototype(), &Forget},
      {&kAnswerThenThrow, &Prototype(), &Prototype(), &AnswerThenThrow},
      {&kDropWhileCatching, &Prototype(), &Prototype(), &DropWhileCatching},
      {&kInlineDropWhileCatching, &Prototype(), &Prototype(), &DropWhileCatching},
      {&kOverloadedAfterRunning, &Prototype(), &Prototype(), &OverloadedAfterRunning},
  };
  return kMethods;
}

void ExpectServes(FrameClient& client, uint64_t id) {
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.SendRequest(id, TestService::kName, "Echo", "alive"));
  const auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value, "alive");
}

TestServer::TestServer(ServerOptions options, std::vector<HttpRoute> routes)
    : server_([&] {
        options.listen = "127.0.0.1:0";
        return options;
      }()) {
  EXPECT_TRUE(server_.AddService(&service_).ok());
  for (HttpRoute& route : routes) EXPECT_TRUE(server_.AddHttpRoute(std::move(route)).ok());
  const Status started = server_.Start();
  EXPECT_TRUE(started.ok()) << started;
}

TestServer::~TestServer() {
  // Lets any handler still blocked finish, so that the server's destruction cannot hang.
  service_.gate.Open();
}

}  // namespace ferry::test

#include "test_service.h"

#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <stdexcept>

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
  if (!context.auth_token().empty()) {
    out +=
        " token=" + context.auth_token() + " token_id=" + std::to_string(context.auth_token_id());
  }
  Out(response, std::move(out));
  return Status::Ok();
}

const StringValue& Prototype() { return StringValue::default_instance(); }

constexpr MethodSpec kEcho{TestService::kName, "Echo"};
constexpr MethodSpec kInlineEcho{TestService::kName, "InlineEcho", true, true};
constexpr MethodSpec kThreadName{TestService::kName, "ThreadName"};
constexpr MethodSpec kInlineThreadName{TestService::kName, "InlineThreadName", true, true};
constexpr MethodSpec kBlock{TestService::kName, "Block"};
constexpr MethodSpec kCount{TestService::kName, "Count"};
constexpr MethodSpec kThrow{TestService::kName, "Throw"};
constexpr MethodSpec kContext{TestService::kName, "Context"};
constexpr MethodSpec kInlineContext{TestService::kName, "InlineContext", true, true};

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
      {&kEcho, &Prototype(), &Prototype(), &Echo},
      {&kInlineEcho, &Prototype(), &Prototype(), &Echo},
      {&kThreadName, &Prototype(), &Prototype(), &ThreadName},
      {&kInlineThreadName, &Prototype(), &Prototype(), &ThreadName},
      {&kBlock, &Prototype(), &Prototype(), &Block},
      {&kCount, &Prototype(), &Prototype(), &Count},
      {&kThrow, &Prototype(), &Prototype(), &Throw},
      {&kContext, &Prototype(), &Prototype(), &Context},
      {&kInlineContext, &Prototype(), &Prototype(), &Context},
  };
  return kMethods;
}

TestServer::TestServer(ServerOptions options)
    : server_([&] {
        options.listen = "127.0.0.1:0";
        return options;
      }()) {
  EXPECT_TRUE(server_.AddService(&service_).ok());
  const Status started = server_.Start();
  EXPECT_TRUE(started.ok()) << started;
}

TestServer::~TestServer() {
  // Lets any handler still blocked finish, so that the server's destruction cannot hang.
  service_.gate.Open();
}

}  // namespace ferry::test

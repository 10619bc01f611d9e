#include "client/request_meta.h"

#include <array>
#include <cstring>
#include <random>

#include "ferry/rpc_meta.pb.h"

namespace ferry::client {

void FillRandomTraceId(std::string* out) {
  // One generator per thread: no lock, and ids from different threads do not correlate.
  thread_local std::mt19937_64 random(std::random_device{}());
  // Two hex digits per byte from one table: every call of every channel makes an id.
  static constexpr auto kHexPairs = [] {
    std::array<char, 512> pairs{};
    constexpr char kHex[] = "0123456789abcdef";
    for (int i = 0; i < 256; ++i) {
      pairs[2 * i] = kHex[i >> 4];
      pairs[2 * i + 1] = kHex[i & 0xF];
    }
    return pairs;
  }();
  static_assert(kTraceIdLength == 16, "one 64-bit draw makes the whole id");
  uint64_t bits = random();
  out->resize(kTraceIdLength);
  char* digits = out->data();
  for (int byte = 0; byte < 8; ++byte, bits >>= 8) {
    std::memcpy(digits + 2 * byte, &kHexPairs[2 * (bits & 0xFF)], 2);
  }
}

namespace {

// The fields either form sets alike.
void FillFixedFields(const MethodSpec& method, const CallOptions& options, uint64_t timeout_us,
                     wire::RpcMeta* meta) {
  meta->Clear();
  meta->set_service(method.service.data(), method.service.size());
  meta->set_method(method.method.data(), method.method.size());
  meta->set_timeout_us(timeout_us);
  meta->set_call_id(options.request_id);
  for (const auto& [key, value] : options.attachments) (*meta->mutable_attachments())[key] = value;
}

}  // namespace

void FillRequestMeta(const MethodSpec& method, const CallOptions& options, uint64_t timeout_us,
                     wire::RpcMeta* meta) {
  FillFixedFields(method, options, timeout_us, meta);
  if (options.trace_id.empty()) {
    FillRandomTraceId(meta->mutable_trace_id());
  } else {
    meta->set_trace_id(options.trace_id);
  }
  if (!options.auth_token.empty()) meta->set_auth_token(options.auth_token);
}

void FillRequestMeta(const MethodSpec& method, CallOptions&& options, uint64_t timeout_us,
                     wire::RpcMeta* meta) {
  FillFixedFields(method, options, timeout_us, meta);
  if (options.trace_id.empty()) {
    FillRandomTraceId(meta->mutable_trace_id());
  } else {
    meta->mutable_trace_id()->swap(options.trace_id);
  }
  if (!options.auth_token.empty()) meta->mutable_auth_token()->swap(options.auth_token);
}

}  // namespace ferry::client

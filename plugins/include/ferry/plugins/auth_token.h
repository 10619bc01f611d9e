#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/filter.h"

namespace ferry::plugins {

// What an `auth` token is bound to besides its key, time, nonce and caller: the request as the
// server sees it. `body` is exactly the bytes that travel: the frame's body as the client
// encoded it (ClientCall::body, ServerAdmission::body), or an HTTP gateway call's JSON body as
// sent. Attachments are signed too, so that none can be added, dropped or changed in flight.
struct AuthRequest {
  std::string_view service;
  std::string_view method;
  std::string_view body;
  const Attachments* attachments = nullptr;  // null: none
  // How the request travels (ClientCall::framing, ServerAdmission::framing): signed so that
  // nobody on its path can have the same bytes read another way (serializer, compression), have
  // it go unanswered (one-way), shrink the answer the caller takes or lift its deadline. For
  // MakeAuthToken, timeout_us is the call's whole budget, which the token carries; for
  // VerifyAuthToken, what this attempt says is left of it, which may be less but not more. An
  // HTTP gateway call is {.timeout_us = X-Ferry-Timeout-Ms * 1000 (0 without the header),
  // .serializer = 1 (JSON)} and the other fields' defaults.
  RequestFraming framing;
};

// The credential of the `auth` filters (docs/plugins.md, docs/protocol.md):
//
//   v4:<key_id>:<unix_ms>:<nonce>:<caller>:<timeout_us>:<22 unpadded base64url digits of the
//      first 128 bits of HMAC-SHA256(secret, "v4\n" key_id "\n" unix_ms "\n" nonce "\n" caller
//      "\n" timeout_us "\n" service "\n" method "\n" serializer "\n" compression "\n" one_way
//      "\n" max_response_bytes "\n" <attachments> "\n" body)>
//
// where <attachments> is their count in decimal and "\n", then for each in byte order of the
// keys <key length> ":" key <value length> ":" value (lengths in decimal), and the numbers are
// decimal (one_way 0 or 1). `key_id` names the key (rotation), `nonce` makes every token unique
// (the server refuses one it has seen), `caller` (maybe empty) is the identity the server hands
// on as ServerContext::verified_caller(), `timeout_us` the call's budget (0: none), which every
// attempt's must stay within. key_id and caller are 1-64 and 0-64 characters of
// [A-Za-z0-9._@-]; nonce is 16-64 base64url digits.
std::string MakeAuthToken(std::string_view key_id, std::string_view secret,
                          const AuthRequest& request, std::string_view caller, int64_t unix_ms,
                          std::string_view nonce);

// A nonce for MakeAuthToken: 96 random bits as 16 base64url digits.
std::string NewAuthNonce();

// OK when the v4 `token` was made with (`key_id`, `secret`) for `request`, its time is within
// `max_skew` of `now_unix_ms` either way and the request's timeout within the token's budget;
// otherwise UNAUTHENTICATED saying what is wrong (missing, malformed, too old or too new, another
// key, a longer timeout, not signed for this request), never revealing the expected signature
// or key. Checks no nonce: replays are the server filter's to catch. Sets `*caller` (when not
// null) to the token's caller.
Status VerifyAuthToken(std::string_view key_id, std::string_view secret, std::string_view token,
                       const AuthRequest& request, int64_t now_unix_ms,
                       std::chrono::milliseconds max_skew, std::string* caller = nullptr);

}  // namespace ferry::plugins

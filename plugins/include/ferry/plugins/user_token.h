#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::plugins {

// The credential of the `user_token` server filter (docs/plugins.md): who a call is made for,
// for which service, signed by whoever issues users their tokens (a login service, the
// `ferry-user-token` tool):
//
//   u2:<key_id>:<user>:<audience>:<token_id>:<issued_unix_s>:<expires_unix_s>:<43 unpadded
//      base64url digits of HMAC-SHA256(secret, "u2\n" key_id "\n" user "\n" audience "\n"
//      token_id "\n" issued_unix_s "\n" expires_unix_s)>
//
// `key_id` names the key (rotation) and is 1-64 characters of [A-Za-z0-9._@-], `user` and
// `audience` (the service the token is for) 1-128 of the same, `token_id` (what revokes this
// one token) 1-64; the times are decimal seconds. Unlike an `auth` token it is not bound to one
// request: a user holds it until it expires, for every call.
//
// The older form, u1, carries neither audience nor id:
//
//   u1:<key_id>:<user>:<issued_unix_s>:<expires_unix_s>:<mac of "u1\n" key_id "\n" user "\n"
//      issued_unix_s "\n" expires_unix_s>
//
// A server with an `audience` refuses it unless told otherwise (`v1_tokens: accept`).
//
// A token that names roles (what its user may act as, e.g. an operator) is a u3 one, u2 with them
// signed after the id:
//
//   u3:<key_id>:<user>:<audience>:<token_id>:<roles>:<issued_unix_s>:<expires_unix_s>:<mac of
//      "u3\n" key_id "\n" user "\n" audience "\n" token_id "\n" roles "\n" issued_unix_s "\n"
//      expires_unix_s>
//
// where <roles> is 1-16 roles of 1-64 characters of [A-Za-z0-9._@-], separated by commas (made in
// byte order, each once); the `user_token` filter hands them on as
// ServerContext::verified_roles().
inline constexpr size_t kMaxUserIdChars = 128;

// The attachment a user token travels in (over the HTTP gateway: the header
// `X-Ferry-Attachment-User-Token`). Not the frame's auth_token, which service-to-service `auth`
// uses: both can be on at once.
inline constexpr std::string_view kUserTokenAttachment = "user-token";

// A token for `user`, good from `issued_unix_s` until `expires_unix_s` (exclusive). Empty when
// an argument is not valid (see above, and expires after issued) or OpenSSL fails.
std::string MakeUserToken(std::string_view key_id, std::string_view secret, std::string_view user,
                          int64_t issued_unix_s, int64_t expires_unix_s);

// What a u2 or u3 token says.
struct UserTokenClaims {
  std::string_view user;
  std::string_view audience;
  std::string_view token_id;
  int64_t issued_unix_s = 0;
  int64_t expires_unix_s = 0;
  // Empty: a u2 token; else a u3 one naming these (sorted, duplicates dropped).
  std::vector<std::string_view> roles;
};

// A u2 token of `claims`, u3 with roles; empty when one is not valid (see above) or OpenSSL fails.
std::string MakeUserToken(std::string_view key_id, std::string_view secret,
                          const UserTokenClaims& claims);

// 16 base64url characters from the system's random source: a token id no one can guess (an
// id that could be guessed could be revoked by whoever can revoke, for anyone). Empty if the
// random source fails.
std::string NewUserTokenId();

}  // namespace ferry::plugins

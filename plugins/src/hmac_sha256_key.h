#pragma once

#include <optional>
#include <string_view>

#include "hmac_sha256.h"

typedef struct evp_mac_ctx_st EVP_MAC_CTX;

namespace ferry::plugins {

// HMAC-SHA256 under one key, keyed once: every MAC starts from a copy of the keyed state
// (EVP_MAC_CTX_dup), which costs a fraction of keying a context (two SHA-256 blocks and the
// provider's parameter parsing) on every request. Thread-safe: the keyed state is only copied.
class HmacSha256Key {
 public:
  // One MAC being computed; feed it with Update(), then Final() once.
  class Mac {
   public:
    ~Mac();
    Mac(Mac&& other) noexcept;
    Mac(const Mac&) = delete;
    Mac& operator=(const Mac&) = delete;
    Mac& operator=(Mac&&) = delete;

    void Update(std::string_view bytes);
    // nullopt when OpenSSL failed anywhere, which callers must treat as "cannot verify".
    std::optional<Sha256Digest> Final();

   private:
    friend class HmacSha256Key;
    explicit Mac(EVP_MAC_CTX* ctx) : ctx_(ctx) {}
    EVP_MAC_CTX* ctx_;
    bool failed_ = false;
  };

  explicit HmacSha256Key(std::string_view key);
  ~HmacSha256Key();
  HmacSha256Key(const HmacSha256Key&) = delete;
  HmacSha256Key& operator=(const HmacSha256Key&) = delete;

  // False when OpenSSL could not key the state; every Mac then fails.
  bool ok() const { return keyed_ != nullptr; }
  Mac Start() const;

 private:
  EVP_MAC_CTX* keyed_ = nullptr;
};

}  // namespace ferry::plugins

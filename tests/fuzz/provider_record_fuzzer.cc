// The provider record a registry hands back (a znode's data, whoever wrote it): decoding must
// never crash, must refuse what is malformed as DATA_LOSS saying why, and what it accepts must
// encode and decode back to itself, unless a value holds what a record cannot carry.
//
// Input: one byte giving the address's length, the address (the znode's name), the record.
#include <fuzzer/FuzzedDataProvider.h>

#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/registry.h"
#include "ferry/registry/registry_url.h"
#include "fuzz_check.h"
#include "provider_record.h"

namespace {

using ferry::ProviderInfo;
using ferry::StatusCode;

bool HoldsCarriageReturn(const ProviderInfo& provider) {
  const auto has = [](const std::string& text) { return text.find('\r') != std::string::npos; };
  if (has(provider.version) || has(provider.group) || has(provider.zone)) return true;
  for (const std::string& method : provider.methods) {
    if (has(method)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const std::string address = input.ConsumeBytesAsString(input.ConsumeIntegral<uint8_t>() % 64);
  const std::string record = input.ConsumeRemainingBytesAsString();

  ProviderInfo provider;
  provider.weight = 7;  // left alone on failure
  const ferry::Status decoded = ferry::registry::DecodeProviderRecord(address, record, &provider);
  if (!decoded.ok()) {
    FERRY_FUZZ_CHECK(decoded.code() == StatusCode::DATA_LOSS, "%s", decoded.ToString().c_str());
    FERRY_FUZZ_CHECK(decoded.message().find(address) != std::string::npos,
                     "the error does not name the provider: %s", decoded.message().c_str());
    FERRY_FUZZ_CHECK(provider.weight == 7 && provider.address.empty(),
                     "a refused record changed the output");
    return 0;
  }
  FERRY_FUZZ_CHECK(ferry::registry::IsHostPort(address), "accepted address '%s'", address.c_str());
  FERRY_FUZZ_CHECK(provider.address == address, "address '%s'", provider.address.c_str());
  for (const std::string& method : provider.methods) {
    FERRY_FUZZ_CHECK(!method.empty() && method.find_first_of(",\n") == std::string::npos,
                     "method '%s'", method.c_str());
  }

  std::string encoded;
  const ferry::Status written = ferry::registry::EncodeProviderRecord(provider, &encoded);
  if (HoldsCarriageReturn(provider)) {
    // Decoding splits lines at '\n' alone; writing refuses any line break.
    FERRY_FUZZ_CHECK(written.code() == StatusCode::INVALID_ARGUMENT, "%s",
                     written.ToString().c_str());
    return 0;
  }
  FERRY_FUZZ_CHECK(written.ok(), "cannot write what was read: %s", written.ToString().c_str());
  ProviderInfo again;
  const ferry::Status reread = ferry::registry::DecodeProviderRecord(address, encoded, &again);
  FERRY_FUZZ_CHECK(reread.ok(), "cannot read what was written: %s\n%s", reread.ToString().c_str(),
                   encoded.c_str());
  FERRY_FUZZ_CHECK(again == provider, "read back differently:\n%s", encoded.c_str());
  return 0;
}

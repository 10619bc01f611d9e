#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/plugins/revocation_snapshot.h"
#include "ferry/plugins/token_revocations.h"

namespace ferry::plugins {
namespace {

// The revocations of kind "memory": what the config lists, for a single provider (several would
// each need the same list; "redis" shares one).
//
//   revocations:
//     kind: memory
//     token_ids: [Zb3k9QpW2xTy4mLc]
//     users_before: {mallory: 1764600000}
class MemoryRevocations final : public TokenRevocations {
 public:
  void Configure(config::ConfigReader& config) override {
    std::vector<std::string> ids;
    config.StringList("token_ids", &ids);
    list_.token_ids.insert(ids.begin(), ids.end());
    config::ConfigReader users = config.Section("users_before");
    for (const std::string& user : config.KeysOf("users_before")) {
      int64_t before = 0;
      users.Integer(user, 0, config::ConfigReader::kNoMax, &before);
      list_.users_before[user] = before;
    }
  }

  bool Revoked(std::string_view token_id, std::string_view user,
               int64_t issued_unix_s) const override {
    return list_.Revoked(token_id, user, issued_unix_s);
  }

 private:
  RevocationSnapshot list_;
};

}  // namespace

void RegisterMemoryRevocations(ExtensionRegistry& registry) {
  registry.Register<TokenRevocations>("memory",
                                      [] { return std::make_shared<MemoryRevocations>(); });
}

}  // namespace ferry::plugins

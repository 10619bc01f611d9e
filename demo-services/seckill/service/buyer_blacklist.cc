#include "service/buyer_blacklist.h"

namespace ferry::seckill {

Status BuyerBlacklist::Refresh() {
  BlacklistEntries entries;
  return Read(&entries);
}

Status BuyerBlacklist::Change(const BlacklistChange& change, BlacklistEntries* entries) {
  if (Status s = store_->ChangeBlacklist(change); !s.ok()) return s;
  return Read(entries);
}

Status BuyerBlacklist::Read(BlacklistEntries* entries) {
  if (Status s = store_->ReadBlacklist(entries); !s.ok()) return s;
  auto copy = std::make_shared<Copy>();
  copy->users.insert(entries->users.begin(), entries->users.end());
  copy->addresses.insert(entries->addresses.begin(), entries->addresses.end());
  std::lock_guard lock(mu_);
  copy_ = std::move(copy);
  return Status::Ok();
}

bool BuyerBlacklist::Blocked(std::string_view user, std::string_view client_address) const {
  std::shared_ptr<const Copy> copy;
  {
    std::lock_guard lock(mu_);
    copy = copy_;
  }
  return (!user.empty() && copy->users.contains(std::string(user))) ||
         (!client_address.empty() && copy->addresses.contains(std::string(client_address)));
}

}  // namespace ferry::seckill

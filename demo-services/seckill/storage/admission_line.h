#pragma once

#include <cstdint>
#include <string>

#include "ferry/codec/status.h"

namespace ferry::seckill {

// One buyer's turn at an activity's admission (Admit).
struct AdmissionAsk {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user;
  int64_t now_ms = 0;
  // Admissions that may be out at once (admission.multiple x the units still on sale); 0 lets
  // nobody in, without refusing anybody their place in line.
  int64_t capacity = 0;
  int64_t admission_ttl_ms = 0;  // an admission lasts this long from its grant
  // A waiting buyer who has not asked again for this long loses their place
  // (admission.wait_ttl_ms).
  int64_t wait_ttl_ms = 0;
  int64_t max_waiting = 0;  // buyers waiting at most; past it a newcomer is not enrolled
};

struct AdmissionTurn {
  bool admitted = false;
  int64_t expires_ms = 0;  // admitted: when the admission lapses
  // Not admitted: buyers ahead of this one in line (those enrolled before); when the line was
  // full, its length, and the buyer is not enrolled.
  int64_t position = 0;
};

// Who is admitted to an activity's sale and who waits, in arrival order: the seeds' "10
// units, 100k buyers" entrance. Admitted buyers are held until their admission lapses or they
// decided a purchase (Leave). Per activity+sku; the order of the line is the only state shared
// by the providers, the admission itself is a signed token (service/admission_tokens.h).
class AdmissionLine {
 public:
  virtual ~AdmissionLine() = default;

  // Admits `ask.user` when they were admitted before (the same expiry), or when they are among
  // the first (capacity - admitted) in line; otherwise enrols them (once) and tells their place.
  virtual Status Ask(const AdmissionAsk& ask, AdmissionTurn* turn) = 0;
  // The user decided a purchase: their admission no longer holds a place.
  virtual Status Leave(int64_t activity_id, int64_t sku_id, const std::string& user) = 0;
};

}  // namespace ferry::seckill

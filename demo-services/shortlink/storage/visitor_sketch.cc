#include "storage/visitor_sketch.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

namespace ferry::shortlink {

namespace {

constexpr char kExactTag = 'E';
constexpr char kRegistersTag = 'H';
constexpr int kRankBits = 64 - VisitorSketch::kPrecision;  // q in Ertl's paper
constexpr uint8_t kMaxRank = kRankBits + 1;

void PutLittleEndian(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

// sigma and tau of Ertl, "New cardinality estimation algorithms for HyperLogLog sketches"
// (2017): the estimator without empirical bias tables that is right from a handful of visitors
// to billions, so no switch between linear counting and the raw estimate is needed.
double Sigma(double x) {
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  double y = 1.0;
  double z = x;
  for (double previous = -1.0; previous != z;) {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  }
  return z;
}

double Tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1.0 - x;
  for (double previous = -1.0; previous != z;) {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= (1.0 - x) * (1.0 - x) * y;
  }
  return z / 3.0;
}

}  // namespace

bool VisitorSketch::Parse(std::string_view bytes, VisitorSketch* out, std::string* error) {
  *out = VisitorSketch();
  if (bytes.empty()) return true;
  const std::string_view body = bytes.substr(1);
  if (bytes[0] == kExactTag) {
    if (body.size() % 8 != 0 || body.size() / 8 > kExactLimit) {
      *error = "visitor sketch: " + std::to_string(body.size()) + " bytes of hashes";
      return false;
    }
    for (size_t i = 0; i < body.size(); i += 8) {
      const uint64_t v = GetLittleEndian(body.data() + i);
      if (!out->exact_.empty() && out->exact_.back() >= v) {
        *error = "visitor sketch: hashes not in ascending order";
        return false;
      }
      out->exact_.push_back(v);
    }
    return true;
  }
  if (bytes[0] == kRegistersTag) {
    if (body.size() != kRegisters) {
      *error = "visitor sketch: " + std::to_string(body.size()) + " registers, not " +
               std::to_string(kRegisters);
      return false;
    }
    out->registers_.assign(body.begin(), body.end());
    if (std::any_of(out->registers_.begin(), out->registers_.end(),
                    [](uint8_t r) { return r > kMaxRank; })) {
      *error = "visitor sketch: a register above " + std::to_string(kMaxRank);
      return false;
    }
    return true;
  }
  *error = "visitor sketch: unknown format byte " + std::to_string(static_cast<int>(bytes[0]));
  return false;
}

std::string VisitorSketch::Serialize() const {
  std::string out;
  if (exact()) {
    if (exact_.empty()) return out;
    out.reserve(1 + 8 * exact_.size());
    out.push_back(kExactTag);
    for (uint64_t v : exact_) PutLittleEndian(v, &out);
    return out;
  }
  out.reserve(1 + kRegisters);
  out.push_back(kRegistersTag);
  out.append(registers_.begin(), registers_.end());
  return out;
}

void VisitorSketch::Add(uint64_t visitor) {
  if (!exact()) {
    AddToRegisters(visitor);
    return;
  }
  auto at = std::lower_bound(exact_.begin(), exact_.end(), visitor);
  if (at != exact_.end() && *at == visitor) return;
  exact_.insert(at, visitor);
  if (exact_.size() > kExactLimit) ToRegisters();
}

void VisitorSketch::ToRegisters() {
  registers_.assign(kRegisters, 0);
  for (uint64_t v : exact_) AddToRegisters(v);
  exact_.clear();
  exact_.shrink_to_fit();
}

// The top kPrecision bits choose the register; it keeps the highest position of the first one
// bit among the other bits (kMaxRank when they are all zero).
void VisitorSketch::AddToRegisters(uint64_t visitor) {
  const size_t index = static_cast<size_t>(visitor >> kRankBits);
  const uint64_t rest = visitor << kPrecision;
  const uint8_t rank =
      rest == 0 ? kMaxRank : static_cast<uint8_t>(std::min(std::countl_zero(rest) + 1, +kMaxRank));
  registers_[index] = std::max(registers_[index], rank);
}

int64_t VisitorSketch::Count() const {
  if (exact()) return static_cast<int64_t>(exact_.size());
  int histogram[kMaxRank + 1] = {};
  for (uint8_t r : registers_) ++histogram[r];
  const double m = static_cast<double>(kRegisters);
  double z = m * Tau((m - histogram[kMaxRank]) / m);
  for (int k = kRankBits; k >= 1; --k) {
    z += histogram[k];
    z *= 0.5;
  }
  z += m * Sigma(histogram[0] / m);
  constexpr double kAlphaInfinity = 0.5 / 0.693147180559945309417;  // 1 / (2 ln 2)
  return std::llround(kAlphaInfinity * m * m / z);
}

bool ParseVisitor(std::string_view hex, uint64_t* visitor) {
  if (hex.size() != 16) return false;
  const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), *visitor, 16);
  return ec == std::errc() && end == hex.data() + hex.size();
}

}  // namespace ferry::shortlink

#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <random>
#include <string>

namespace ferry::codec_test {

// Fills any message with random values through reflection, favouring the edges: INT64_MIN,
// UINT64_MAX, NaN, infinities, -0.0, subnormals, empty and non-ASCII strings (code points
// protobuf escapes among them), bytes of all 256 values, enum numbers without a name, empty
// messages, oneofs set to defaults. Same seed, same messages.
class RandomMessage {
 public:
  explicit RandomMessage(uint64_t seed) : engine_(seed) {}

  // Replaces `message`'s content. Maps come out as a parsed message holds them (each key once,
  // in the map's own order), messages nest at most `depth` deep.
  void Fill(google::protobuf::Message* message, int depth);

  // Random text: ASCII, controls, code points of all UTF-8 lengths, some protobuf escapes.
  std::string Text();
  std::string Bytes();

 private:
  void FillFields(google::protobuf::Message* message, int depth);
  void SetValue(google::protobuf::Message* message, const google::protobuf::FieldDescriptor* field,
                bool add, int depth);
  bool Chance(int percent) { return Below(100) < percent; }
  int Below(int bound) { return std::uniform_int_distribution<int>(0, bound - 1)(engine_); }
  template <typename T>
  T Integer();
  double Double();
  float Float();
  int EnumNumber(const google::protobuf::FieldDescriptor* field);

  std::mt19937_64 engine_;
};

}  // namespace ferry::codec_test

// Fuzzes the reader of the on-disk program cache's entries (core/src/disk_cache.cpp): the input is
// an entry file's bytes. cache_decode must never throw; it is asked for the key the file claims to
// hold (so that the fuzzer gets past the key), and for two others, which it must refuse. An entry it
// accepts must be exactly what cache_encode writes for that key and payload, and what cache_encode
// writes for a key and payload made of the input must decode to that payload.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "check.hpp"
#include "disk_cache.hpp"

namespace {

constexpr char kMagic[] = "duet-program-cache 1\n";

// The key the entry claims, read as the format lays it out (magic line, 64-bit little-endian
// length, key); empty when the input is too short for that.
std::string claimed_key(const std::string& data) {
  const std::size_t at = sizeof kMagic - 1;
  if (data.size() < at + 8) return {};
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= std::uint64_t(static_cast<unsigned char>(data[at + i])) << (8 * i);
  if (length > data.size() - at - 8) return {};
  return data.substr(at + 8, length);
}

std::optional<std::string> decode(const std::string& data, const std::string& key) {
  std::optional<std::string> payload;
  std::string problem;
  duet::fuzz::never_throws([&] { payload = duet::detail::cache_decode(data, key, problem); }, "cache_decode");
  duet::fuzz::check(payload || !problem.empty(), "cache_decode refused an entry without saying why");
  return payload;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string key = claimed_key(bytes);
  if (const std::optional<std::string> payload = decode(bytes, key))
    duet::fuzz::check(duet::detail::cache_encode(key, *payload) == bytes,
                      "cache_decode accepted an entry that cache_encode would not write");
  duet::fuzz::check(!decode(bytes, key + "x"), "cache_decode accepted an entry of another key");
  duet::fuzz::check(key.empty() || !decode(bytes, key.substr(1)), "cache_decode accepted an entry of another key");

  // Round trip: the first half of the input as the key, the rest as the payload.
  const std::string new_key = bytes.substr(0, size / 2), new_payload = bytes.substr(size / 2);
  const std::optional<std::string> back = decode(duet::detail::cache_encode(new_key, new_payload), new_key);
  duet::fuzz::check(back && *back == new_payload, "an entry cache_encode wrote does not decode to its payload");
  return 0;
}

// The on-disk program cache behind duet/cache.hpp. A file holds a magic line, the full key text (so a
// hash collision is a miss, never a wrong program), the payload and a checksum of the payload.
#pragma once

#include <optional>
#include <string>

namespace duet::detail {

// The payload stored under `key`, or nothing (absent, damaged, another key, cache off).
std::optional<std::string> cache_load(const std::string& key);
// Stores `payload` under `key`; failures turn the cache off for this process.
void cache_store(const std::string& key, const std::string& payload);

// Counts a program the driver refused to load from a cache entry.
void cache_count_rejected();

// The file format itself, without files (cache_store and cache_load use these; the fuzzer calls them
// directly). cache_encode: the bytes of an entry holding `payload` under `key`. cache_decode: the
// payload of the entry `data` when it is exactly what cache_encode writes for `key`; nothing when it
// is not, with what is wrong in `problem` ("is truncated").
std::string cache_encode(const std::string& key, const std::string& payload);
std::optional<std::string> cache_decode(const std::string& data, const std::string& key, std::string& problem);

}  // namespace duet::detail

// The little JSON the benchmark needs: a writer for its results file and a reader for the peer
// files (compare_cupy.py, compare_pyopencl.py) whose measured ceilings, such as cuBLAS SGEMM, become
// the limits of duet's own rows. No dependency beyond the standard library.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace duet::bench {

// A parsed JSON value. An object's members are kept in file order as two parallel vectors
// (std::vector, unlike std::map, may hold the incomplete type Json).
struct Json {
  enum class Type { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::string> keys;  // an object's member names
  std::vector<Json> members;      // and their values

  // The member `key` of an object (the first one of that name), or a null value when this is no
  // object or has no such key.
  const Json& operator[](const std::string& key) const;
  bool is_null() const noexcept { return type == Type::null; }
  // The string, or `fallback` when this is not a string.
  std::string str(const std::string& fallback = "") const;
  // The number, or `fallback` when this is not a number.
  double num(double fallback) const;
};

// Parses a whole JSON document; throws std::runtime_error naming the offset of the first error.
Json parse_json(const std::string& text);
// Reads and parses a file; throws std::runtime_error when it cannot be read or parsed.
Json read_json_file(const std::string& path);

// Writes JSON with two-space indentation. Non-finite numbers are written as null, since JSON has
// no NaN. Usage: w.begin_object(); w.key("a"); w.value(1.0); w.end_object();
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(const std::string& name);
  void value(double number);
  void value(long long number);
  void value(int number) { value(static_cast<long long>(number)); }
  void value(std::size_t number) { value(static_cast<long long>(number)); }
  void value(bool flag);
  void value(const std::string& text);
  void value(const char* text) { value(std::string(text)); }
  void null();

  // key(name) followed by value(v).
  template <class T>
  void field(const std::string& name, const T& v) {
    key(name);
    value(v);
  }

 private:
  void before_value();
  void newline();

  std::ostream& out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// `text` as a quoted JSON string.
std::string json_quote(const std::string& text);

}  // namespace duet::bench

// JSON reading and writing for the benchmark's result files.
#include "json_io.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace duet::bench {

const Json& Json::operator[](const std::string& key) const {
  static const Json missing;
  if (type != Type::object) return missing;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return members[i];
  return missing;
}

std::string Json::str(const std::string& fallback) const {
  return type == Type::string ? string : fallback;
}

double Json::num(double fallback) const { return type == Type::number ? number : fallback; }

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Json document() {
    Json value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("text after the end of the document");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                                   text_[pos_] == '\t'))
      ++pos_;
  }

  char peek() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of the document");
    return text_[pos_];
  }

  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  bool take_word(const char* word) {
    const std::size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  Json parse_value() {
    Json value;
    const char c = peek();
    if (c == '{') {
      value.type = Json::Type::object;
      ++pos_;
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      for (;;) {
        if (peek() != '"') fail("expected a member name");
        value.keys.push_back(parse_string());
        expect(':');
        value.members.push_back(parse_value());
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.type = Json::Type::array;
      ++pos_;
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      for (;;) {
        value.array.push_back(parse_value());
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.type = Json::Type::string;
      value.string = parse_string();
      return value;
    }
    if (take_word("null")) return value;
    if (take_word("true") || take_word("false")) {
      value.type = Json::Type::boolean;
      value.boolean = text_[pos_ - 1] == 'e' && text_[pos_ - 2] == 'u';  // "true", not "false"
      return value;
    }
    // strtod also reads the NaN and Infinity that Python's json module writes unless told not to.
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    const double parsed = std::strtod(begin, &end);
    if (end == begin) fail("expected a value");
    pos_ += static_cast<std::size_t>(end - begin);
    return number(parsed);
  }

  static Json number(double v) {
    Json value;
    value.type = Json::Type::number;
    value.number = v;
    return value;
  }

  // A string literal; \u escapes are decoded to UTF-8 (surrogate pairs are left as two characters,
  // which the benchmark's files never hold).
  std::string parse_string() {
    expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      c = text_[pos_++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(text_.substr(pos_, 4), nullptr, 16));
          pos_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default: out += c;  // \" \\ \/
      }
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

}  // namespace

Json parse_json(const std::string& text) { return Parser(text).document(); }

Json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_json(text.str());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("'" + path + "': " + e.what());
  }
}

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::newline() {
  out_ << '\n' << std::string(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ << ',';
    first_.back() = false;
    newline();
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  first_.push_back(true);
}

void JsonWriter::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ << '}';
  if (first_.empty()) out_ << '\n';
}

void JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  first_.push_back(true);
}

void JsonWriter::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ << ']';
}

void JsonWriter::key(const std::string& name) {
  before_value();
  out_ << json_quote(name) << ": ";
  after_key_ = true;
}

void JsonWriter::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    out_ << "null";
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", number);
  out_ << text;
}

void JsonWriter::value(long long number) {
  before_value();
  out_ << number;
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
}

void JsonWriter::value(const std::string& text) {
  before_value();
  out_ << json_quote(text);
}

void JsonWriter::null() {
  before_value();
  out_ << "null";
}

}  // namespace duet::bench

// util/utf8.h on sequences whose validity is known from the UTF-8 definition (RFC 3629: overlong
// forms, surrogates and code points above U+10FFFF are ill-formed), and yaml_fields::load's refusal
// of a key given twice in any mapping, an alias walked once.
#include <gtest/gtest.h>

#include <string>

#include "util/error.h"
#include "util/utf8.h"
#include "util/yaml_fields.h"

namespace hetcim {
namespace {

TEST(Utf8, WellFormed) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("relu_1/Conv"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9"));       // e-acute, U+00E9
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));      // euro sign, U+20AC
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
}

TEST(Utf8, IllFormed) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("caf\xE9"));           // Latin-1 e-acute
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // overlong NUL
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(is_valid_utf8("\x80"));              // a continuation byte alone
}

TEST(Utf8, EscapedForMessages) {
  EXPECT_EQ(escape_bytes("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(escape_bytes("caf\xE9\xFF"), "caf\\xE9\\xFF");
  EXPECT_EQ(escape_bytes("a\nb"), "a\\x0Ab");
  try {
    require_utf8("x\xFF", "node name");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "node name 'x\\xFF' is not valid UTF-8");
  }
}

std::string load_error(const std::string& text) {
  try {
    (void)yaml_fields::load(text, "f.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(YamlLoad, KeyGivenTwice) {
  EXPECT_EQ(load_error("a: 1\nb: 2\n"), "");
  EXPECT_EQ(load_error("a: 1\na: 2\n"),
            "f.yaml: field 'a' is given twice (line 2); a reader would silently take the first");
  EXPECT_NE(load_error("cim: {t_mvm: 50ns, t_mvm: 1s}\n").find("field 'cim.t_mvm' is given twice"),
            std::string::npos);
  EXPECT_NE(load_error("engines:\n  - {name: a}\n  - {name: b, name: c}\n")
                .find("field 'engines[1].name' is given twice"),
            std::string::npos);
  EXPECT_NE(load_error("a: [1\n").find("f.yaml: not valid YAML (line"), std::string::npos);
}

TEST(YamlLoad, AliasesWalkedOnce) {
  // 9 levels of 9 aliases each: 9^9 paths to the leaf, 10 distinct nodes.
  std::string text = "l0: &l0 {x: 1}\n";
  for (int i = 1; i <= 9; ++i) {
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) text += std::string(k ? ", " : "") + "*l" + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_EQ(load_error(text), "");
}

}  // namespace
}  // namespace hetcim

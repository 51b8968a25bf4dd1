// The environment's settings (support/Settings.h): one parser, the same
// spellings for every switch, sizes that refuse negatives and overflow, and
// junk in any variable an InputError naming it when a Runtime is made.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/Settings.h"
#include "tests/unit/scoped_env.h"
#include "ufjit/errors.h"
#include "ufjit/runtime.h"

namespace ufjit::support {
namespace {

using testing::ScopedEnv;

/// Every variable ufjit reads, with a valid value and junk for it.
struct Variable {
  const char *name;
  const char *good;
  std::vector<const char *> junk;
};

const std::vector<Variable> &variables() {
  static const std::vector<Variable> all = {
      {"UFJIT_CACHE", "OFF", {"maybe", "2", "offf", "-1"}},
      {"UFJIT_TIERING", "No", {"x", "00x"}},
      {"UFJIT_WARMUP", "TRUE", {"y", "enable"}},
      {"UFJIT_PREFETCH", "0", {"nope"}},
      {"UFJIT_DONE_FLAGS", "on", {"1.0"}},
      {"UFJIT_LIBDEVICE_SLICES", "yes", {"si"}},
      {"NUMBA_BOUNDSCHECK", "1", {"sure"}},
      {"UFJIT_CACHE_MAX_BYTES", "64M", {"-5", "lots", "1.5G", "18446744073709551616", "20000000000T", "5 M"}},
      {"UFJIT_CPU_STREAM_BYTES", "0", {"-1", "12x", "1e9"}},
      {"UFJIT_DEVICE", "0", {"abc", "-1", "0x1", "99999999999"}},
      {"UFJIT_DEBUG", "0", {"x", "-1", "4", "1.5"}},
      {"UFJIT_TARGET", "CPU", {"gpu", "cpu,cuda"}},
      {"UFJIT_CPU_VECTOR_MATH", "Sleef", {"mkl"}},
  };
  return all;
}

TEST(Settings, SwitchesAcceptEverySpellingInAnyCase) {
  for (const char *on : {"1", "on", "ON", "True", "yes", "YES", " on "}) {
    EXPECT_EQ(parse_switch(on), std::optional<bool>(true)) << on;
  }
  for (const char *off : {"0", "off", "OFF", "False", "no", "No"}) {
    EXPECT_EQ(parse_switch(off), std::optional<bool>(false)) << off;
  }
  for (const char *junk : {"", "2", "onn", "t", "y", "-0"}) {
    EXPECT_EQ(parse_switch(junk), std::nullopt) << junk;
  }
}

TEST(Settings, SizesAreWholeBytesWithBinarySuffixesAndNeverWrap) {
  EXPECT_EQ(parse_size("0"), std::optional<uint64_t>(0));
  EXPECT_EQ(parse_size("12345"), std::optional<uint64_t>(12345));
  EXPECT_EQ(parse_size("3M"), std::optional<uint64_t>(uint64_t{3} << 20));
  EXPECT_EQ(parse_size("2kb"), std::optional<uint64_t>(2048));
  EXPECT_EQ(parse_size("1G"), std::optional<uint64_t>(uint64_t{1} << 30));
  EXPECT_EQ(parse_size("4T"), std::optional<uint64_t>(uint64_t{4} << 40));
  EXPECT_EQ(parse_size("18446744073709551615"), std::optional<uint64_t>(UINT64_MAX));
  for (const char *junk : {"-5", "+5", "", "lots", "1.5G", "18446744073709551616", "16777216T", "5MM", "0x10"}) {
    EXPECT_EQ(parse_size(junk), std::nullopt) << junk;
  }
}

TEST(Settings, UnsetOrEmptyMeansTheDefault) {
  ScopedEnv empty("UFJIT_TIERING", "");
  EXPECT_TRUE(read_switch("UFJIT_TIERING", true));
  EXPECT_FALSE(read_switch("UFJIT_TIERING", false));
  ScopedEnv unset("UFJIT_CACHE_MAX_BYTES", std::nullopt);
  EXPECT_EQ(read_size("UFJIT_CACHE_MAX_BYTES"), std::nullopt);
}

TEST(Settings, ANegativeCacheCapIsRefusedNotWrappedToAHugeNumber) {
  ScopedEnv env("UFJIT_CACHE_MAX_BYTES", "-5");
  try {
    (void)read_size("UFJIT_CACHE_MAX_BYTES");
    ADD_FAILURE() << "-5 was accepted";
  } catch (const InputError &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("UFJIT_CACHE_MAX_BYTES='-5'"), std::string::npos) << message;
    EXPECT_NE(message.find("not negative"), std::string::npos) << message;
  }
}

TEST(Settings, EveryVariableAcceptsItsGoodValue) {
  for (const Variable &v : variables()) {
    ScopedEnv env(v.name, v.good);
    EXPECT_NO_THROW(check_settings()) << v.name << "=" << v.good;
  }
}

TEST(Settings, JunkInAnyVariableIsAnInputErrorNamingItAndItsValue) {
  for (const Variable &v : variables()) {
    for (const char *junk : v.junk) {
      ScopedEnv env(v.name, junk);
      try {
        check_settings();
        ADD_FAILURE() << v.name << "=" << junk << " was accepted";
      } catch (const InputError &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::string(v.name) + "='" + junk + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("takes"), std::string::npos) << message;
      }
    }
  }
}

TEST(Settings, ARuntimeIsNotMadeWithJunkInASettingItWouldNotOtherwiseRead) {
  // UFJIT_DEVICE matters only with a GPU; junk in it is refused anyway, so a
  // typo does not wait for another machine to show up.
  ScopedEnv device("UFJIT_DEVICE", "abc");
  RuntimeOptions options;
  options.target = TargetKind::Cpu;
  EXPECT_THROW(Runtime rt(options), InputError);
}

TEST(Settings, DebugLevelIsZeroToThree) {
  {
    ScopedEnv env("UFJIT_DEBUG", std::nullopt);
    EXPECT_EQ(debug_level(), 0);
  }
  {
    ScopedEnv env("UFJIT_DEBUG", "2");
    EXPECT_EQ(debug_level(), 2);
  }
  {
    ScopedEnv env("UFJIT_DEBUG", "x");
    EXPECT_THROW((void)debug_level(), InputError);
  }
}

}  // namespace
}  // namespace ufjit::support

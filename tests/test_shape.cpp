#include <gtest/gtest.h>
TEST(dummy, x) {}

// The window of raw pages `live --save-on-fail` keeps: whole pages go when their last event
// is older than the window, or, oldest first, when the byte limit is reached.
#include "record/recent_pages.h"

#include <string>

#include <gtest/gtest.h>

namespace napiscope {
namespace {

using internal::RecentPages;

constexpr size_t kPage = 4096;
constexpr TimestampNs kSecond = 1'000'000'000;

std::string Page(char fill) { return std::string(kPage, fill); }

TEST(RecentPages, DropsWholePagesOlderThanTheWindow) {
  RecentPages recent(2, 10 * kSecond, size_t{1} << 30);
  recent.Add(0, Page('a'), 1 * kSecond, 2 * kSecond, 5);
  recent.Add(1, Page('b'), 3 * kSecond, 4 * kSecond, 7);
  recent.Add(0, Page('c'), 5 * kSecond, 11 * kSecond, 3);
  // Newest 11 s, window from 1 s: nothing ends before it yet.
  EXPECT_EQ(recent.page_count(), 3);
  EXPECT_EQ(recent.events(), 15);
  EXPECT_EQ(recent.first_ns(), 1 * kSecond);
  recent.Add(1, Page('d'), 12 * kSecond, 13 * kSecond, 4);
  // Window from 3 s: CPU 0's first page (ends at 2 s) goes, CPU 1's (ends at 4 s) stays.
  EXPECT_EQ(recent.page_count(), 3);
  EXPECT_EQ(recent.events(), 14);
  EXPECT_EQ(recent.first_ns(), 3 * kSecond);
  EXPECT_EQ(recent.last_ns(), 13 * kSecond);
  ASSERT_EQ(recent.pages(0).size(), 1u);
  EXPECT_EQ(recent.pages(0).front().bytes, Page('c'));
  EXPECT_EQ(recent.bytes(), 3 * kPage);
  EXPECT_EQ(recent.dropped_for_memory(), 0);
}

TEST(RecentPages, ByteLimitDropsTheOldestPageOfAnyCpu) {
  RecentPages recent(2, 100 * kSecond, 2 * kPage);
  recent.Add(1, Page('a'), 1 * kSecond, 2 * kSecond, 1);
  recent.Add(0, Page('b'), 1 * kSecond, 3 * kSecond, 1);
  recent.Add(1, Page('c'), 4 * kSecond, 5 * kSecond, 1);
  EXPECT_EQ(recent.bytes(), 2 * kPage);
  EXPECT_EQ(recent.dropped_for_memory(), 1);
  ASSERT_EQ(recent.pages(1).size(), 1u);
  EXPECT_EQ(recent.pages(1).front().bytes, Page('c'));
  EXPECT_EQ(recent.pages(0).front().bytes, Page('b'));
  EXPECT_EQ(recent.first_ns(), 1 * kSecond);
}

TEST(RecentPages, PagesWithoutEventsAreNotKept) {
  RecentPages recent(1, kSecond, kPage);
  recent.Add(0, Page('a'), -1, -1, 0);
  EXPECT_EQ(recent.page_count(), 0);
  EXPECT_EQ(recent.first_ns(), 0);
  EXPECT_EQ(recent.bytes(), 0u);
}

}  // namespace
}  // namespace napiscope

// Two libraries that chose one namespace (duet_test_clash) and both embed step.duet, loaded into
// one program: their registrations clash while the program loads. duet says so on stderr then, and
// every lookup afterwards, each library's own included, is a ConfigError naming both targets; no
// lookup returns either text in the other's place. Prints "embed clash: OK" when all of that holds
// (the ctest entry also requires the load-time message).
#include <duet/duet.hpp>
#include <duet/extension.hpp>
#include <functional>
#include <iostream>
#include <string>

const char* clash_a_step();
const char* clash_b_step();

namespace {

int failures = 0;

void expect_clash(const char* what, const std::function<void()>& lookup) {
  try {
    lookup();
    std::cout << what << ": no error\n";
    ++failures;
  } catch (const duet::ConfigError& e) {
    const std::string message = e.what();
    for (const char* part : {"duet_test_clash/step", "target duet_test_clash_a", "target duet_test_clash_b", "NAMESPACE"})
      if (message.find(part) == std::string::npos) {
        std::cout << what << ": the message lacks \"" << part << "\": " << message << '\n';
        ++failures;
      }
  } catch (const std::exception& e) {
    std::cout << what << ": another error: " << e.what() << '\n';
    ++failures;
  }
}

}  // namespace

int main() {
  expect_clash("library a's own lookup", [] { clash_a_step(); });
  expect_clash("library b's own lookup", [] { clash_b_step(); });
  expect_clash("builtin_kernel_source(qualified)", [] { duet::builtin_kernel_source("duet_test_clash/step"); });
  expect_clash("builtin_kernel_source(stem)", [] { duet::builtin_kernel_source("step"); });
  expect_clash("builtin_kernel_source(duet's)", [] { duet::builtin_kernel_source("vector_add"); });
  expect_clash("builtin_kernel_names", [] { duet::builtin_kernel_names(); });
  expect_clash("KernelLibrary", [] { duet::extension::KernelLibrary("duet").source("vector_add"); });
  if (failures) return 1;
  std::cout << "embed clash: OK\n";
  return 0;
}

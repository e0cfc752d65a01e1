/* cxx-calls.cc - a C++ program built as Debian builds one (-O2 -g, no frame pointers),
 * whose time goes to a member function of a class template in a namespace, called
 * through a function that takes a std::string: names to demangle, frames to unwind.
 * main() calls app::run(std::string const&, long), which calls app::Worker<long>::spin(long)
 * until MS milliseconds of the process's CPU time have passed.
 *   cxx-calls [MS]       (1000 ms)
 */
// cflags: -O2 -g -static
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>

namespace app {

static long cpu_ms()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

template <class T> struct Worker {
	volatile T rounds = 0;
	__attribute__((noinline)) T spin(T until)
	{
		for (;;) {
			for (unsigned long i = 0; i < (1UL << 20); i++)
				rounds = rounds + 1;
			if (cpu_ms() >= until)
				return rounds;
		}
	}
};

__attribute__((noinline)) long run(const std::string &what, long ms)
{
	Worker<long> w;
	long r = w.spin(cpu_ms() + ms);
	return r + (long)what.size();
}

} // namespace app

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	std::cout << (app::run("spin", ms) & 1) << "\n";
	return 0;
}

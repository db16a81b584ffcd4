// The floor of process start-to-exit: a C++ program that does nothing and links nothing beyond
// the C library (built with --as-needed, so not even libstdc++ is loaded).
int main() {
  return 0;
}

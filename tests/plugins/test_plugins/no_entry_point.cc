// A shared object that is not a Ferry plugin: it exports neither entry point.

extern "C" __attribute__((visibility("default"))) int not_a_ferry_entry_point() { return 0; }

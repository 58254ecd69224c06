package io.jtrace.jfr.format;

/** A Java frame as a flame graph node: its method, line and how it ran (interpreted, JIT, inlined, native). */
record JavaFrame(long functionIid, int line, int kind) {}

package io.jtrace.jmx;

/** A running session's trace written to a file while it goes on. */
public record DumpInfo(String session, String file, long bytes, long packets) {
}

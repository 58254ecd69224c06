package io.jtrace.service.status;

import java.nio.file.Path;

/** A running session's trace written to a file while the session goes on: where, how many bytes and packets. */
public record DumpResult(long sessionId, Path file, long bytes, long packets) {
}

package io.jtrace.agent.tracks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The OS thread id of the calling thread, so JVM thread tracks line up with a system trace of the same
 * process. On Linux {@code /proc/thread-self} links to {@code <pid>/task/<tid>}; elsewhere there is no
 * portable way, and the Java thread id is used instead.
 */
public final class OsThreadId {
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    private OsThreadId() {}

    public static long current() {
        try {
            String link = Files.readSymbolicLink(THREAD_SELF).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return Thread.currentThread().getId();
        }
    }
}

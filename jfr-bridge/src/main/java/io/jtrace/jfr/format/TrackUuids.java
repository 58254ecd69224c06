package io.jtrace.jfr.format;

/**
 * The uuids of a process's tracks. The agent's live source answers with the agent's own scheme (so JFR
 * events land on the application's thread tracks); a merge answers with the uuids the trace already has.
 */
public interface TrackUuids {
    long process();

    long thread(long tid);

    long virtualThread(long javaThreadId);

    long named(String name);
}

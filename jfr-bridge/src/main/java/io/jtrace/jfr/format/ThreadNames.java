package io.jtrace.jfr.format;

import jdk.jfr.consumer.RecordedThread;

/**
 * A JFR thread's name: its Java name, else its OS name (JVM-internal threads), else a placeholder. A
 * virtual thread (no OS thread: JFR gives it OS thread id -1) has only its Java name, which may be empty;
 * its track is then named as the agent names it ("virtual thread #id"), so both describe it alike.
 */
final class ThreadNames {
    private ThreadNames() {}

    static String of(RecordedThread t) {
        if (t.getOSThreadId() <= 0) {
            return t.getJavaName() == null ? "" : t.getJavaName();
        }
        String name = t.getJavaName();
        if (name == null || name.isEmpty()) {
            name = t.getOSName();
        }
        return name == null || name.isEmpty() ? "thread " + t.getOSThreadId() : name;
    }
}

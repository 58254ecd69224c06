package io.jtrace.jfr.format;

import jdk.jfr.consumer.RecordedThread;

/** A JFR thread's name: its Java name, else its OS name (JVM-internal threads), else a placeholder. */
final class ThreadNames {
    private ThreadNames() {}

    static String of(RecordedThread t) {
        String name = t.getJavaName();
        if (name == null || name.isEmpty()) {
            name = t.getOSName();
        }
        return name == null || name.isEmpty() ? "thread " + t.getOSThreadId() : name;
    }
}

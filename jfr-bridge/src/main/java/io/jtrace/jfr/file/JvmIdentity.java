package io.jtrace.jfr.file;

import java.io.IOException;
import java.nio.file.Path;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The recorded JVM's pid and main class, from {@code jdk.JVMInformation} (written at the start of every
 * chunk): thread tracks need the pid, and a merge checks it against the trace's process.
 */
record JvmIdentity(int pid, String name) {
    /** Enough to pass the first chunk's start-of-chunk events without reading a whole big file twice. */
    private static final int MAX_EVENTS_SCANNED = 200_000;

    static final JvmIdentity UNKNOWN = new JvmIdentity(0, "jfr recording");

    boolean known() {
        return pid > 0;
    }

    static JvmIdentity find(Path jfr) {
        try (RecordingFile file = new RecordingFile(jfr)) {
            for (int i = 0; i < MAX_EVENTS_SCANNED && file.hasMoreEvents(); i++) {
                RecordedEvent e = file.readEvent();
                if (e.getEventType().getName().equals("jdk.JVMInformation") && e.hasField("pid")) {
                    String command = e.hasField("javaArguments") ? e.getString("javaArguments") : null;
                    String main = command == null || command.isBlank() ? "java" : command.split(" ", 2)[0];
                    return new JvmIdentity((int) e.getLong("pid"), main);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Damage is reported by the conversion itself; without an identity the pid stays unknown.
        }
        return UNKNOWN;
    }
}

package io.jtrace.jfr.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The recorded JVM's pid and main class: thread tracks need the pid, and a merge checks it against the
 * trace's process. Of JFR's events (JDK 17 to 25) only {@code jdk.JVMInformation} (written at the start
 * of every chunk) carries the JVM's own pid; {@code jdk.ProcessStart} has a child's, and
 * {@code jdk.SystemProcess} lists every process of the machine. Without {@code jdk.JVMInformation}, the
 * JVM is the one process of that list whose command line ends with the JVM's {@code sun.java.command}
 * ({@code jdk.InitialSystemProperty}), when exactly one does: the JVM was running when it listed the
 * processes, so it is on the list, and a unique match is it. Otherwise the pid is unknown.
 */
record JvmIdentity(int pid, String name, String source) {
    /** Enough to pass the first chunk's start-of-chunk events without reading a whole big file twice. */
    private static final int MAX_EVENTS_SCANNED = 200_000;

    static final JvmIdentity UNKNOWN = new JvmIdentity(0, "jfr recording", null);

    boolean known() {
        return pid > 0;
    }

    static JvmIdentity find(Path jfr) {
        String command = null;
        Set<String> pids = new HashSet<>();
        Set<String> matching = new HashSet<>();
        Set<String> commandLines = new HashSet<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            for (int i = 0; i < MAX_EVENTS_SCANNED && file.hasMoreEvents(); i++) {
                RecordedEvent e = file.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.JVMInformation") && e.hasField("pid")) {
                    String arguments = e.hasField("javaArguments") ? e.getString("javaArguments") : null;
                    return new JvmIdentity((int) e.getLong("pid"), mainOf(arguments), "jdk.JVMInformation");
                }
                if (type.equals("jdk.InitialSystemProperty") && "sun.java.command".equals(e.getString("key"))) {
                    command = e.getString("value");
                } else if (type.equals("jdk.SystemProcess")) {
                    String pid = e.getString("pid");
                    String commandLine = e.getString("commandLine");
                    if (pid != null && commandLine != null && pids.add(pid)) {
                        commandLines.add(pid + " " + commandLine);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // Damage is reported by the conversion itself; without an identity the pid stays unknown.
        }
        if (command == null || command.isBlank()) {
            return UNKNOWN;
        }
        for (String pidAndLine : commandLines) {
            int space = pidAndLine.indexOf(' ');
            String line = pidAndLine.substring(space + 1).trim();
            if (line.equals(command) || line.endsWith(" " + command)) {
                matching.add(pidAndLine.substring(0, space));
            }
        }
        if (matching.size() != 1) {
            return UNKNOWN;
        }
        try {
            return new JvmIdentity(Integer.parseInt(matching.iterator().next()), mainOf(command),
                    "jdk.SystemProcess matching sun.java.command");
        } catch (NumberFormatException e) {
            return UNKNOWN;
        }
    }

    private static String mainOf(String command) {
        return command == null || command.isBlank() ? "java" : command.split(" ", 2)[0];
    }
}

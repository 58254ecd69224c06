package io.jtrace.agent.control;

import io.jtrace.protos.TraceConfig;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A session to start, from whichever surface asked (agent options, jcmd, JMX, the CLI).
 *
 * @param name its unique name; null for the next {@code session-<n>}
 * @param config what to trace; the output fields (write_into_file, output_path) are set by the session
 * @param mode {@link Mode#FILE}: stream into {@code file} while tracing; {@link Mode#RING}: keep the
 *     trace in memory, write {@code file} at the end and on each dump
 * @param file where the trace goes; null for {@code jtrace-<pid>-<time>-<name>.pftrace}
 */
public record SessionRequest(String name, TraceConfig config, Mode mode, Path file) {
    public enum Mode {
        FILE, RING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

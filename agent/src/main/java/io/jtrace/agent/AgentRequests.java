package io.jtrace.agent;

import io.jtrace.agent.config.TextTraceConfig;
import io.jtrace.agent.control.SessionRegistry;
import io.jtrace.agent.control.SessionRequest;
import io.jtrace.protos.TraceConfig;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.LoggerFactory;

/** Turns agent options and text TraceConfigs into session requests, for every control surface. */
final class AgentRequests implements SessionRegistry.RequestParser {
    @Override
    public SessionRequest fromOptions(String options) {
        String text = options == null ? "" : options.trim();
        // Through JMX and the CLI the options describe a session to start: 'start' goes without saying.
        if (!Arrays.stream(text.split(",")).map(String::trim).toList().contains("start")) {
            text = text.isEmpty() ? "start" : "start," + text;
        }
        return request(AgentOptions.parse(text));
    }

    @Override
    public SessionRequest fromConfig(String traceConfigText, String file) {
        return fromConfig(TextTraceConfig.parse(traceConfigText), null,
                file == null || file.isBlank() ? null : Path.of(file));
    }

    /**
     * A text config's session, as Perfetto runs it: write_into_file streams into the file (FILE mode),
     * otherwise the buffers are kept and written at the end (RING mode). The file given wins over the
     * config's output_path; the name given wins over its unique_session_name.
     */
    static SessionRequest fromConfig(TraceConfig config, String name, Path file) {
        for (TraceConfig.DataSource ds : config.getDataSourcesList()) {
            // The embedded service's only producer is this agent: a name it lacks would trace nothing, silently.
            String source = ds.getConfig().getName();
            if (!AgentOptions.isKnownSource(source)) {
                throw new IllegalArgumentException("the trace config names data source '" + source
                        + "', which this agent does not have (it has: " + AgentOptions.knownSourcesText() + ")");
            }
        }
        Path target = file != null ? file : config.getOutputPath().isEmpty() ? null : Path.of(config.getOutputPath());
        String sessionName = name != null ? name
                : config.getUniqueSessionName().isEmpty() ? null : config.getUniqueSessionName();
        return new SessionRequest(sessionName, config,
                config.getWriteIntoFile() ? SessionRequest.Mode.FILE : SessionRequest.Mode.RING, target);
    }

    static SessionRequest request(AgentOptions options) {
        if (options.config() != null) {
            String text;
            try {
                text = TextTraceConfig.readText(options.config());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("jtrace option 'config': " + e.getMessage());
            }
            TraceConfig config;
            try {
                config = TextTraceConfig.parse(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("jtrace option 'config': " + options.config() + ": " + e.getMessage());
            }
            return fromConfig(config, options.name(), options.file());
        }
        return new SessionRequest(options.name(), traceConfig(options),
                options.ring() ? SessionRequest.Mode.RING : SessionRequest.Mode.FILE, options.file());
    }

    static TraceConfig traceConfig(AgentOptions options) {
        return OptionsTraceConfig.of(options, bufferBytes(options.bufferBytes(), options.bufferGiven(),
                Runtime.getRuntime().maxMemory()));
    }

    /**
     * The trace buffer lives on the host's heap: never more than an eighth of it, so tracing cannot
     * push the application into OutOfMemoryError. Cutting a buffer the user asked for is worth a
     * warning; cutting the default on a small heap is not (the session's status shows its size).
     */
    static long bufferBytes(long requested, boolean given, long maxHeap) {
        long cap = Math.max(TextTraceConfig.MIN_BUFFER_KB * 1024L, maxHeap / 8);
        if (requested > cap) {
            String message = "jtrace: a trace buffer of {} bytes would be more than an eighth of the heap ({} bytes); "
                    + "using {} bytes";
            if (given) {
                LoggerFactory.getLogger(AgentRuntime.class).warn(message, requested, maxHeap, cap);
            } else {
                LoggerFactory.getLogger(AgentRuntime.class).debug(message, requested, maxHeap, cap);
            }
            return cap;
        }
        return requested;
    }
}

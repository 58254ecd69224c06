package io.jtrace.agent;

import io.jtrace.agent.config.TextTraceConfig;
import io.jtrace.agent.control.SessionRegistry;
import io.jtrace.agent.control.SessionRequest;
import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.JvmJmxConfig;
import io.jtrace.protos.JvmMemoryConfig;
import io.jtrace.protos.JvmThreadsConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TrackEventConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.LoggerFactory;

/** Turns agent options and text TraceConfigs into session requests, for every control surface. */
final class AgentRequests implements SessionRegistry.RequestParser {
    static final int INCREMENTAL_STATE_CLEAR_PERIOD_MS = 5000;

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
                text = Files.readString(options.config(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("jtrace option 'config': cannot read '" + options.config() + "': " + e);
            }
            return fromConfig(TextTraceConfig.parse(text), options.name(), options.file());
        }
        return new SessionRequest(options.name(), traceConfig(options),
                options.ring() ? SessionRequest.Mode.RING : SessionRequest.Mode.FILE, options.file());
    }

    static TraceConfig traceConfig(AgentOptions options) {
        TraceConfig.Builder config = TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder()
                        .setSizeKb((int) (bufferBytes(options.bufferBytes(), Runtime.getRuntime().maxMemory()) / 1024))
                        .setFillPolicy(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER));
        // Ring buffers overwrite the oldest data, including each thread's interned names: have every
        // sequence write them again every few seconds so an overwritten trace still decodes.
        config.setIncrementalStateConfig(TraceConfig.IncrementalStateConfig.newBuilder()
                .setClearPeriodMs(INCREMENTAL_STATE_CLEAR_PERIOD_MS));
        if (options.durationMillis() > 0) {
            config.setDurationMs((int) Math.min(Integer.MAX_VALUE, options.durationMillis()));
        }
        for (String source : options.sources()) {
            DataSourceConfig.Builder ds = DataSourceConfig.newBuilder().setName(source);
            if (source.equals(TrackEventDataSource.NAME) && !options.categories().isEmpty()) {
                ds.setTrackEventConfig(TrackEventConfig.newBuilder().addAllEnabledCategories(options.categories()));
            }
            if (source.equals(ThreadsDataSource.NAME)) {
                ds.setJvmThreadsConfig(JvmThreadsConfig.newBuilder().setSamplePeriodMs((int) options.threadsPeriodMillis()));
            }
            if (source.equals(MemoryDataSource.NAME)) {
                ds.setJvmMemoryConfig(JvmMemoryConfig.newBuilder().setPollPeriodMs((int) options.memoryPeriodMillis()));
            }
            if (source.equals(JmxDataSource.NAME)) {
                ds.setJvmJmxConfig(JvmJmxConfig.newBuilder().addAllAttributes(options.jmxAttributes())
                        .setPollPeriodMs((int) options.jmxPeriodMillis()));
            }
            if (source.equals(JfrDataSource.NAME)) {
                ds.setLegacyConfig(options.jfr());
            }
            config.addDataSources(TraceConfig.DataSource.newBuilder().setConfig(ds));
        }
        return config.build();
    }

    /**
     * The trace buffer lives on the host's heap: never more than an eighth of it, so tracing cannot
     * push the application into OutOfMemoryError.
     */
    static long bufferBytes(long requested, long maxHeap) {
        long cap = Math.max(64 * 1024, maxHeap / 8);
        if (requested > cap) {
            LoggerFactory.getLogger(AgentRuntime.class).warn(
                    "jtrace: buffer of {} bytes is more than an eighth of the heap ({} bytes); using {} bytes",
                    requested, maxHeap, cap);
            return cap;
        }
        return requested;
    }
}

package io.jtrace.agent;

import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jfr.AgentTrackUuids;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TrackEventConfig;
import io.jtrace.service.ProcessIdentity;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Everything the agent runs in the host JVM: the embedded tracing service and this JVM's producer with
 * its data sources. One per JVM, created on the first premain/agentmain.
 */
final class AgentRuntime {
    static final int INCREMENTAL_STATE_CLEAR_PERIOD_MS = 5000;
    private static AgentRuntime instance;

    private final TracingService service;
    private final ProducerClient producer;

    private AgentRuntime() {
        ProcessTrack process = ProcessTrack.forCurrentJvm();
        this.service = new TracingService(ServiceConfig.defaults());
        this.producer = new ProducerClient("jvm:" + process.pid(),
                List.of(new TrackEventDataSource(process), new GcDataSource(process),
                        new JfrDataSource(process.pid(), process.name(), new AgentTrackUuids(process))));
        int uid = ProcessIdentity.uid();
        producer.connect(p -> service.connectProducer(p, producer.name(), uid, process.pid()));
    }

    static synchronized AgentRuntime get() {
        if (instance == null) {
            instance = new AgentRuntime();
        }
        return instance;
    }

    /** Starts the session the options describe; the file is written when it ends or the JVM exits. */
    FileSession startSession(AgentOptions options) throws Exception {
        Path file = options.file() != null ? options.file() : defaultFile();
        FileSession session = FileSession.start(service, traceConfig(options), file);
        Thread hook = new Thread(() -> session.stopAndWrite(15_000), "jtrace-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        session.written().whenComplete((n, e) -> {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to: it finds the file written and returns at once.
            }
        });
        return session;
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

    private static Path defaultFile() {
        String time = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return Path.of("jtrace-" + ProcessHandle.current().pid() + "-" + time + ".pftrace");
    }
}

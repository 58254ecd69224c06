package io.jtrace.benchmarks;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TrackEventConfig;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the benchmarks trace into: track_event running with category "bench" enabled and "off"
 * disabled, either through the real embedded service (chunks copied into a ring buffer by the service
 * thread, as in production), into an SMB whose committed chunks are freed at once ("writer": the
 * application thread's cost with nothing else on the machine's two cores), or into one whose chunks are
 * never freed ("full": once the SMB has filled, some hundred thousand events in, every event is dropped
 * and counted: the cost of an event while the tracer is overloaded).
 */
final class EmbeddedTracing implements AutoCloseable {
    static final int SMB_SIZE = 4 * 1024 * 1024;

    private final AutoCloseable shutdown;
    /** The track_event data source the API's events go to: a benchmark may call it with its own timestamps. */
    final TrackEventDataSource source;

    private EmbeddedTracing(TrackEventDataSource source, AutoCloseable shutdown) {
        this.source = source;
        this.shutdown = shutdown;
    }

    static EmbeddedTracing start(String mode) throws Exception {
        switch (mode) {
            case "service":
                return throughService();
            case "writer":
                return writerOnly(true);
            case "full":
                return writerOnly(false);
            default:
                throw new IllegalArgumentException("mode " + mode + ": one of service, writer, full");
        }
    }

    /**
     * The config the service sends. Without a service (writer and full modes) the service's own part is
     * set as it would set it: chunks carry the sequence's need of incremental state, as with the agent's
     * service, so the events take the agent's path.
     */
    private static DataSourceConfig trackEventConfig() {
        return DataSourceConfig.newBuilder().setName(TrackEventDataSource.NAME).setNeedsIncrementalStateByChunk(true)
                .setTrackEventConfig(TrackEventConfig.newBuilder().addEnabledCategories("bench")).build();
    }

    private static EmbeddedTracing throughService() throws Exception {
        ProcessTrack process = ProcessTrack.forCurrentJvm();
        TracingService service = new TracingService(new ServiceConfig(SMB_SIZE, SharedMemoryBuffer.DEFAULT_PAGE_SIZE, null, 4, 1L << 30, 5000));
        TrackEventDataSource source = new TrackEventDataSource(process);
        ProducerClient producer = new ProducerClient("bench", List.of(source));
        producer.connect(p -> service.connectProducer(p, "bench", 0, process.pid()));
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024)
                        .setFillPolicy(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(trackEventConfig()))
                .build()).get(10, TimeUnit.SECONDS);
        consumer.flush(5000).get(10, TimeUnit.SECONDS); // data sources have started once this returns
        return new EmbeddedTracing(source, () -> {
            consumer.freeBuffers().get(10, TimeUnit.SECONDS);
            producer.close();
            service.close();
        });
    }

    private static EmbeddedTracing writerOnly(boolean freeChunks) throws Exception {
        ScheduledExecutorService producerThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-producer");
            t.setDaemon(true);
            return t;
        });
        FreedSmb smb = new FreedSmb(SMB_SIZE, producerThread, freeChunks);
        TrackEventDataSource source = new TrackEventDataSource(ProcessTrack.forCurrentJvm());
        DataSourceInstance instance = source.create(smb, trackEventConfig());
        producerThread.submit(instance::start).get();
        return new EmbeddedTracing(source, () -> {
            producerThread.submit(instance::stop).get();
            producerThread.shutdown();
            smb.close();
        });
    }

    @Override
    public void close() throws Exception {
        shutdown.close();
    }
}

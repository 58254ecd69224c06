package io.jtrace.producer;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.service.DataSourceDescriptor;
import io.jtrace.service.Producer;
import io.jtrace.service.ProducerEndpoint;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.SmbFullPolicy;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer side of a process: hosts {@link DataSource}s, maps the SMB the service hands it, owns
 * the chunk arbiter and the commit thread, and turns the service's calls into data source lifecycle
 * calls on its own thread (so the service thread never waits on a data source).
 */
public final class ProducerClient implements Producer, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerClient.class);
    private static final long COMMIT_PERIOD_MILLIS = 50;

    private final String name;
    private final Map<String, DataSource> dataSources = new LinkedHashMap<>();
    private final ScheduledExecutorService thread;
    // ---- owned by the producer thread (after connect) ----
    private final Map<Long, DataSourceInstance> instances = new HashMap<>();
    /** Volatile: written by connect, read by the thread the service calls in on (an IPC reader thread when remote). */
    private volatile ProducerEndpoint endpoint;
    /** Written in onTracingSetup (service thread) before any data source is set up (producer thread, later task). */
    private volatile ChunkArbiter arbiter;
    private volatile ChunkCommitter committer;

    public ProducerClient(String name, List<DataSource> sources) {
        this.name = name;
        for (DataSource source : sources) {
            dataSources.put(source.name(), source);
        }
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtrace-producer");
            t.setDaemon(true);
            return t;
        });
    }

    public String name() {
        return name;
    }

    /** Connects to a service through {@code connect} (embedded call or IPC) and advertises every data source. */
    public void connect(Function<Producer, ProducerEndpoint> connect) {
        endpoint = connect.apply(this);
        for (String source : dataSources.keySet()) {
            // Both notifications: the service then knows when a session's data really flows, and when
            // a stopping data source has written its last packet.
            endpoint.registerDataSource(new DataSourceDescriptor(source, true, true));
        }
    }

    @Override
    public void onConnect() {
        LOG.debug("jtrace producer {} connected", name);
    }

    @Override
    public void onTracingSetup(Path smbPath, int pageSize) {
        try {
            SharedMemoryBuffer smb = SharedMemoryBuffer.map(smbPath, pageSize);
            SharedMemoryAbi abi = new SharedMemoryAbi(smb);
            ChunkCommitter newCommitter = new ChunkCommitter(abi.pageCount(), endpoint, COMMIT_PERIOD_MILLIS,
                    "jtrace-commit");
            newCommitter.start();
            committer = newCommitter;
            arbiter = new ChunkArbiter(abi, newCommitter);
            // From the producer's thread, like every other call to the service: this method may run on an
            // IPC reader thread, which must never wait on a write to the service.
            run(endpoint::smbMapped);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map the shared memory buffer " + smbPath, e);
        }
    }

    @Override
    public void setupDataSource(long instanceId, DataSourceConfig config) {
        run(() -> {
            DataSource source = dataSources.get(config.getName());
            if (source == null || arbiter == null) {
                LOG.warn("jtrace producer {}: cannot set up data source {}", name, config.getName());
                return;
            }
            instances.put(instanceId, source.create(new Context(instanceId, config), config));
        });
    }

    @Override
    public void startDataSource(long instanceId, DataSourceConfig config) {
        run(() -> {
            try {
                DataSourceInstance instance = instances.get(instanceId);
                if (instance != null) {
                    instance.start();
                }
            } finally {
                // Also after a failure: the service must not wait for a start that will never come.
                endpoint.notifyDataSourceStarted(instanceId);
            }
        });
    }

    @Override
    public void stopDataSource(long instanceId) {
        run(() -> {
            try {
                DataSourceInstance instance = instances.remove(instanceId);
                if (instance != null) {
                    instance.stop();
                }
            } finally {
                endpoint.notifyDataSourceStopped(instanceId);
            }
        });
    }

    @Override
    public void flush(long requestId, long[] instanceIds) {
        run(() -> {
            for (long id : instanceIds) {
                DataSourceInstance instance = instances.get(id);
                if (instance != null) {
                    instance.flush();
                }
            }
            // The commit thread acks after committing everything released up to here.
            if (committer != null) {
                committer.requestFlush(requestId);
            } else {
                endpoint.flushComplete(requestId);
            }
        });
    }

    @Override
    public void clearIncrementalState(long[] instanceIds) {
        run(() -> {
            for (long id : instanceIds) {
                DataSourceInstance instance = instances.get(id);
                if (instance != null) {
                    instance.clearIncrementalState();
                }
            }
        });
    }

    @Override
    public void onDisconnect() {
        run(() -> {
            for (DataSourceInstance instance : instances.values()) {
                instance.stop();
            }
            instances.clear();
        });
    }

    /** Stops every data source and the commit thread. */
    @Override
    public void close() {
        onDisconnect();
        thread.shutdown();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (committer != null) {
            committer.close();
        }
    }

    private void run(Runnable task) {
        try {
            thread.execute(guarded(task));
        } catch (RejectedExecutionException e) {
            LOG.debug("jtrace producer {} is closed; call dropped", name);
        }
    }

    private Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // A failing data source must not take the producer (or the host application) down.
                LOG.warn("jtrace producer {}: data source call failed", name, e);
            }
        };
    }

    private final class Context implements DataSourceContext {
        private final long instanceId;
        private final int targetBuffer;
        private final SmbFullPolicy policy;

        Context(long instanceId, DataSourceConfig config) {
            this.instanceId = instanceId;
            this.targetBuffer = config.getTargetBuffer();
            this.policy = policyOf(config);
        }

        @Override
        public TraceWriter newTraceWriter() {
            TraceWriter writer = new TraceWriter(arbiter, targetBuffer, policy);
            endpoint.registerTraceWriter(writer.writerId(), targetBuffer);
            return writer;
        }

        @Override
        public int targetBuffer() {
            return targetBuffer;
        }

        @Override
        public long instanceId() {
            return instanceId;
        }

        @Override
        public int smbChunks() {
            return arbiter.defaultChunkCount();
        }

        @Override
        public Cancellable every(long periodMillis, Runnable task) {
            try {
                ScheduledFuture<?> future = thread.scheduleWithFixedDelay(guarded(task), periodMillis, periodMillis,
                        TimeUnit.MILLISECONDS);
                return () -> future.cancel(false);
            } catch (RejectedExecutionException e) {
                LOG.debug("jtrace producer {} is closed; periodic task not scheduled", name);
                return () -> { };
            }
        }
    }

    /**
     * The config's buffer_exhausted_policy. STALL_THEN_ABORT is taken as STALL_THEN_DROP: a guest agent
     * never aborts its host.
     */
    static SmbFullPolicy policyOf(DataSourceConfig config) {
        switch (config.getBufferExhaustedPolicy()) {
            case BUFFER_EXHAUSTED_STALL_THEN_DROP:
            case BUFFER_EXHAUSTED_STALL_THEN_ABORT:
                return SmbFullPolicy.STALL_THEN_DROP;
            default:
                return SmbFullPolicy.DROP;
        }
    }
}

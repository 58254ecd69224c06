package io.jtrace.service;

import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.BufferCounters;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.status.DumpResult;
import io.jtrace.service.status.ServiceStatus;
import io.jtrace.shm.writer.ChunkPromoter;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tracing service (DESIGN §4, §5): producers register data sources and commit chunks; consumers
 * start sessions, flush, stop and read. One task thread owns every piece of state below; the public
 * and endpoint methods only post tasks to it, so no state needs a lock.
 */
public final class TracingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);
    /** trusted_packet_sequence_id of the service's own packets. */
    public static final int SERVICE_SEQUENCE_ID = 1;

    private final ServiceThread thread = new ServiceThread();

    // ---- state owned by the task thread ----
    private final Map<Integer, ProducerState> producers = new LinkedHashMap<>();
    private final Map<Long, TracingSession> sessions = new LinkedHashMap<>();
    private final Map<Integer, TraceBuffer> buffers = new HashMap<>();
    private final Map<Integer, TracingSession> bufferOwners = new HashMap<>();
    private final SequenceRegistry sequences = new SequenceRegistry();
    private final FlushCoordinator flushes;
    private final DataSourceInstances instances;
    private final SessionOutput output;
    private final ProducerRegistry producerRegistry;
    private final SessionLifecycle lifecycle;
    private final StatusSnapshot statusSnapshot;
    private final SessionDump sessionDump;
    private final TraceStatsBuilder stats;
    /** This process's uid: whose rights the service's files are written with. */
    private final int uid = ProcessIdentity.uid();
    private final long defaultFlushTimeoutMillis;

    public TracingService(ServiceConfig config) {
        ChunkMover chunkMover = new ChunkMover(buffers, bufferOwners, sequences, this::streamedFiles,
                this::clearIncrementalState);
        ServicePackets servicePackets = new ServicePackets(ProcessIdentity.pid(), ProcessIdentity.uid());
        this.stats = new TraceStatsBuilder(producers, sessions, buffers, sequences, chunkMover);
        this.flushes = new FlushCoordinator(producers, thread);
        this.instances = new DataSourceInstances(config, thread, producers, sessions);
        this.output = new SessionOutput(buffers, bufferOwners, sequences, servicePackets, stats, this::stopSession);
        this.producerRegistry = new ProducerRegistry(producers, sessions, sequences, chunkMover, instances, flushes,
                output);
        this.lifecycle = new SessionLifecycle(config, uid, thread, sessions, buffers, bufferOwners, producerRegistry,
                instances, flushes, output);
        this.statusSnapshot = new StatusSnapshot(producers, sessions, buffers);
        this.sessionDump = new SessionDump(buffers, sequences, servicePackets, stats);
        this.defaultFlushTimeoutMillis = config.defaultFlushTimeoutMillis();
    }

    /**
     * Connects a producer of another process; identity (uid, pid) comes from the transport, never from
     * the producer, and every packet it writes is validated before the service appends its trusted fields.
     */
    public ProducerEndpoint connectProducer(Producer producer, String name, int uid, int pid) {
        return connect(producerRegistry.newProducer(producer, name, uid, pid, false));
    }

    /**
     * Connects a producer of this JVM: the agent's own data sources, which only code running in this
     * process can reach. Its identity is this process's, and its packets go out unvalidated (DESIGN §4,
     * "trusted in-process producers"): the service's per-packet work then is framing alone.
     */
    public ProducerEndpoint connectInProcessProducer(Producer producer, String name) {
        return connect(producerRegistry.newProducer(producer, name, uid, ProcessIdentity.pid(), true));
    }

    private ProducerEndpoint connect(ProducerState state) {
        thread.post(() -> producerRegistry.add(state));
        return new ProducerEndpointImpl(state);
    }

    /** Connects a consumer of this process (its sessions count against this process's uid). */
    public ConsumerEndpoint connectConsumer(Consumer consumer) {
        return connectConsumer(consumer, uid);
    }

    /** Connects a consumer whose uid the transport established; its sessions count against that uid's limit. */
    public ConsumerEndpoint connectConsumer(Consumer consumer, int consumerUid) {
        return new ConsumerEndpointImpl(consumer, consumerUid);
    }

    /** A copy of every session (buffers and their counters included) and producer, for control surfaces. */
    public CompletableFuture<ServiceStatus> status() {
        return thread.call(statusSnapshot::take);
    }

    /**
     * Writes a running session's trace so far into {@code file} while the session goes on (a dump, as
     * {@code JFR.dump}): its producers flush first, then its buffers are copied and the copy written.
     * Fails with {@link IllegalArgumentException} for an unknown session, {@link IllegalStateException}
     * for a session that streams into its own file or has stopped, {@link InvalidConfigException} when
     * the file cannot be written. Chunks that writers still hold are copied (up to their last
     * finished packet) like at the end of a session, so a thread that went quiet is in the dump.
     * The service thread only copies; the file is written on a thread of the dump's own.
     */
    public CompletableFuture<DumpResult> dump(long sessionId, Path file) {
        return thread.call(() -> {
            TracingSession session = session(sessionId);
            SessionDump.checkDumpable(session);
            return lifecycle.flush(session, defaultFlushTimeoutMillis);
        })
                .thenCompose(f -> f)
                .thenCompose(flushed -> thread.call(() -> {
                    TracingSession session = session(sessionId);
                    SessionDump.checkDumpable(session);
                    // Threads that went quiet hold their last packets in chunks no flush can reach: copy
                    // those as the end of a session does. Their later commit replaces the copy.
                    producerRegistry.scrape(session);
                    return sessionDump.prepare(session, file);
                }))
                .thenApplyAsync(SessionDump.Prepared::write, SessionDump.WRITER);
    }

    private TracingSession session(long sessionId) {
        TracingSession session = sessions.get(sessionId);
        if (session == null) {
            throw new IllegalArgumentException("no tracing session " + sessionId);
        }
        return session;
    }

    @Override
    public void close() {
        CompletableFuture<Void> done = thread.call(() -> {
            for (TracingSession session : new ArrayList<>(sessions.values())) {
                lifecycle.free(session);
            }
            for (ProducerState producer : new ArrayList<>(producers.values())) {
                producerRegistry.disconnect(producer, null);
            }
            return null;
        });
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("jtrace service did not close cleanly", e);
        }
        thread.shutdown();
    }

    /** A copy of buffer {@code bufferId}'s counters, those TraceStats leaves out included (for tests). */
    CompletableFuture<BufferCounters> bufferCounters(int bufferId) {
        return thread.call(() -> buffers.get(bufferId).counters().copy());
    }

    /** The chunk mover's view of the session files: the output is built after the mover. */
    private StreamedFiles streamedFiles() {
        return output;
    }

    /** How the chunk mover has a session's data sources clear their state: the instances are built after it. */
    private void clearIncrementalState(TracingSession session) {
        instances.clearIncrementalState(session);
    }

    /** How the output stops a session whose file cannot take more: the lifecycle is built after the output. */
    private void stopSession(TracingSession session) {
        lifecycle.disable(session);
    }

    // ------------------------------------------------------------------ endpoints

    private final class ProducerEndpointImpl implements ProducerEndpoint {
        /** Its fields are read and written on the task thread only (it is handed over by the connect task). */
        private final ProducerState state;

        ProducerEndpointImpl(ProducerState state) {
            this.state = state;
        }

        @Override
        public int producerId() {
            return state.id;
        }

        @Override
        public void registerDataSource(DataSourceDescriptor descriptor) {
            thread.post(() -> producerRegistry.registerDataSource(state, descriptor));
        }

        @Override
        public void unregisterDataSource(String name) {
            thread.post(() -> producerRegistry.unregisterDataSource(state, name));
        }

        @Override
        public void notifyDataSourceStarted(long instanceId) {
            thread.post(() -> instances.started(state, instanceId));
        }

        @Override
        public void notifyDataSourceStopped(long instanceId) {
            thread.post(() -> instances.stopped(state, instanceId));
        }

        @Override
        public void registerTraceWriter(int writerId, int targetBuffer) {
            thread.post(() -> state.writerTargets.put(writerId, targetBuffer));
        }

        @Override
        public void unregisterTraceWriter(int writerId) {
            thread.post(() -> state.writerTargets.remove(writerId));
        }

        @Override
        public void commit(CommitRequest request) {
            thread.post(() -> producerRegistry.commit(state, request));
        }

        @Override
        public void flushComplete(long requestId) {
            thread.post(() -> flushes.acked(sessions.values(), state.id, requestId));
        }

        /** Final, so any thread may ask: the committer does, on the producer's thread. */
        @Override
        public ChunkPromoter promoter() {
            return state.promotions;
        }

        @Override
        public void smbMapped() {
            thread.post(state::unlinkSmb);
        }

        @Override
        public void disconnect() {
            thread.post(() -> producerRegistry.disconnect(state, null));
        }
    }

    private final class ConsumerEndpointImpl implements ConsumerEndpoint {
        private final Consumer consumer;
        private final int consumerUid;
        /** Owned by the task thread. */
        private TracingSession session;

        ConsumerEndpointImpl(Consumer consumer, int consumerUid) {
            this.consumer = consumer;
            this.consumerUid = consumerUid;
        }

        @Override
        public CompletableFuture<Long> enableTracing(TraceConfig traceConfig) {
            return thread.call(() -> {
                if (session != null && sessions.containsKey(session.id)) {
                    throw new IllegalStateException("this consumer already has session " + session.id);
                }
                session = lifecycle.enable(consumer, consumerUid, traceConfig);
                return session.started;
            }).thenCompose(f -> f);
        }

        @Override
        public CompletableFuture<Boolean> flush(long timeoutMillis) {
            return thread.call(() -> lifecycle.flush(requireSession(), timeoutMillis)).thenCompose(f -> f);
        }

        @Override
        public CompletableFuture<Void> disableTracing() {
            return thread.call(() -> lifecycle.disable(requireSession())).thenCompose(f -> f);
        }

        @Override
        public CompletableFuture<Long> readBuffers(PacketSink sink) {
            return thread.call(() -> output.readBuffers(requireSession(), sink));
        }

        @Override
        public CompletableFuture<TraceStats> traceStats() {
            return thread.call(() -> stats.build(requireSession()));
        }

        @Override
        public CompletableFuture<Void> freeBuffers() {
            return thread.call(() -> {
                lifecycle.free(requireSession());
                session = null;
                return null;
            });
        }

        private TracingSession requireSession() {
            if (session == null) {
                throw new IllegalStateException("no tracing session: call enableTracing first");
            }
            return session;
        }
    }
}

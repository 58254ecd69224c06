package io.jtrace.service;

import io.jtrace.shm.writer.CommitRequest;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connected producers: connecting, the data sources they register, the chunks they commit, and
 * disconnecting, on request or when a producer's shared memory buffer fails. Service thread only, but
 * for {@link #newProducer}.
 */
final class ProducerRegistry {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);

    /** The only counter touched off the task thread: ids are handed out at connect time. */
    private final AtomicInteger producerIds = new AtomicInteger();
    private final Map<Integer, ProducerState> producers;
    private final Map<Long, TracingSession> sessions;
    private final SequenceRegistry sequences;
    private final ChunkMover chunkMover;
    private final DataSourceInstances instances;
    private final FlushCoordinator flushes;
    private final SessionOutput output;

    ProducerRegistry(Map<Integer, ProducerState> producers, Map<Long, TracingSession> sessions,
                     SequenceRegistry sequences, ChunkMover chunkMover, DataSourceInstances instances,
                     FlushCoordinator flushes, SessionOutput output) {
        this.producers = producers;
        this.sessions = sessions;
        this.sequences = sequences;
        this.chunkMover = chunkMover;
        this.instances = instances;
        this.flushes = flushes;
        this.output = output;
    }

    /** On the connecting thread: the new producer's record, which {@link #add} then registers. */
    ProducerState newProducer(Producer producer, String name, int uid, int pid, boolean inProcess) {
        return new ProducerState(producerIds.incrementAndGet(), name, uid, pid, producer, inProcess,
                sequences::claimSlotId);
    }

    void add(ProducerState producer) {
        producers.put(producer.id, producer);
        sequences.producerConnected(producer.id, producer.pid, producer.uid, producer.inProcess);
        producer.callbacks.onConnect();
    }

    void registerDataSource(ProducerState producer, DataSourceDescriptor descriptor) {
        if (!producer.connected || producer.dataSources.putIfAbsent(descriptor.name(), descriptor) != null) {
            return;
        }
        instances.dataSourceRegistered(producer, descriptor);
    }

    void unregisterDataSource(ProducerState producer, String name) {
        if (producer.dataSources.remove(name) != null) {
            instances.dataSourceGone(producer.id, name);
        }
    }

    void commit(ProducerState producer, CommitRequest request) {
        try {
            if (producer.connected && producer.abi != null) {
                chunkMover.commit(producer, request);
                request.chunksFreed();
                output.drainFilledBuffers(request);
            }
        } catch (InternalError e) {
            // The JVM reports access to a mapping whose file was truncated as InternalError (SIGBUS).
            disconnect(producer, "its shared memory buffer became inaccessible (" + e.getMessage() + ")");
        } finally {
            request.release();
        }
    }

    /** At the end of a session: what its producers' writers still hold goes into its buffers too. */
    void scrape(TracingSession session) {
        scrape(session, false);
    }

    /** A flush of a running session that streams into a file begins: see {@link Promotions#flushBegins}. */
    void flushBegins(TracingSession session) {
        for (ProducerState producer : producers.values()) {
            if (producer.promotions != null && session.hasProducer(producer.id)) {
                producer.promotions.flushBegins(session.bufferIds);
            }
        }
    }

    /**
     * A flush of a running session that streams into a file: what writers hold goes into its buffers,
     * to be read out as far as it goes (a thread that went quiet has its last events in the file).
     */
    void scrapeHeld(TracingSession session) {
        scrape(session, true);
    }

    private void scrape(TracingSession session, boolean heldOnly) {
        for (ProducerState producer : new ArrayList<>(producers.values())) {
            if (session.hasProducer(producer.id)) {
                scrape(producer, session, heldOnly);
            }
        }
    }

    private void scrape(ProducerState producer, TracingSession session, boolean heldOnly) {
        try {
            chunkMover.scrape(producer, session, heldOnly);
        } catch (InternalError e) {
            disconnect(producer, "its shared memory buffer became inaccessible (" + e.getMessage() + ")");
        }
    }

    /** {@code reason}, logged when not null, says why the service drops a producer that did not ask to go. */
    void disconnect(ProducerState producer, String reason) {
        if (!producer.connected) {
            return;
        }
        producer.connected = false;
        chunkMover.reclaimPromotions(producer);
        producers.remove(producer.id);
        producer.unlinkSmb();
        if (producer.smb != null) {
            producer.smb.closeFile();
        }
        if (reason != null) {
            LOG.warn("jtrace: disconnecting producer {} ({}): {}", producer.id, producer.name, reason);
        }
        flushes.producerGone(sessions.values(), producer.id);
        instances.producerGone(producer.id);
        try {
            producer.callbacks.onDisconnect();
        } catch (RuntimeException e) {
            LOG.warn("jtrace producer {} failed in onDisconnect", producer.name, e);
        }
    }
}

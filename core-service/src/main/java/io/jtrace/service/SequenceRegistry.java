package io.jtrace.service;

import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.shm.proto.WireFormat;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Who wrote what: a trusted_packet_sequence_id per (producer, writer), unique in the service and never
 * the service's own, and the pid and uid of every producer ever connected, so its packets keep them
 * after it disconnects. A writer that retires gives up its mapping: a new writer with the recycled id
 * gets a new sequence id (buffers keep the old one for the old writer's chunks). Service thread only.
 */
final class SequenceRegistry implements SequenceIdentity {
    private final Map<Long, Integer> sequenceIds = new HashMap<>();
    /** Per producer: {pid, uid, 1 if connected in this JVM}. */
    private final Map<Integer, int[]> producers = new HashMap<>();
    private int nextSequenceId = TracingService.SERVICE_SEQUENCE_ID + 1;
    /** Ids a slot can hold that a sequence has had (assigned or adopted): none is given out twice. */
    private final BitSet slotIdsUsed = new BitSet(WireFormat.MAX_SLOT_SEQUENCE_ID + 1);

    void producerConnected(int producerId, int pid, int uid, boolean inProcess) {
        producers.put(producerId, new int[] {pid, uid, inProcess ? 1 : 0});
    }

    int producersSeen() {
        return producers.size();
    }

    @Override
    public int sequenceId(int producerId, int writerId) {
        return sequenceIds.computeIfAbsent(key(producerId, writerId), k -> assign());
    }

    /**
     * A trusted producer's writer wrote {@code proposed} into its packets' slots
     * ({@link io.jtrace.shm.writer.ChunkArbiter#proposeSequenceId}): it becomes the writer's sequence id if
     * the writer has none yet and no sequence of this service has had it. Otherwise nothing changes, and
     * the service stamps the id it gives that sequence over the writer's.
     */
    void propose(int producerId, int writerId, int proposed) {
        long key = key(producerId, writerId);
        if (proposed > TracingService.SERVICE_SEQUENCE_ID && proposed <= WireFormat.MAX_SLOT_SEQUENCE_ID
                && !slotIdsUsed.get(proposed) && !sequenceIds.containsKey(key)) {
            slotIdsUsed.set(proposed);
            sequenceIds.put(key, proposed);
        }
    }

    private int assign() {
        while (nextSequenceId <= WireFormat.MAX_SLOT_SEQUENCE_ID && slotIdsUsed.get(nextSequenceId)) {
            nextSequenceId++;
        }
        int id = nextSequenceId++;
        if (id <= WireFormat.MAX_SLOT_SEQUENCE_ID) {
            slotIdsUsed.set(id);
        }
        return id;
    }

    private static long key(int producerId, int writerId) {
        return ((long) producerId << 16) | writerId;
    }

    /** The writer retired: the next one with this id starts a new sequence. */
    void retire(int producerId, int writerId) {
        sequenceIds.remove(key(producerId, writerId));
    }

    @Override
    public int pid(int producerId) {
        return producers.get(producerId)[0];
    }

    @Override
    public int uid(int producerId) {
        return producers.get(producerId)[1];
    }

    @Override
    public boolean trusted(int producerId) {
        return producers.get(producerId)[2] != 0;
    }
}

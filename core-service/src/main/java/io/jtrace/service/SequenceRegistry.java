package io.jtrace.service;

import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.shm.proto.WireFormat;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Who wrote what: a trusted_packet_sequence_id per (producer, writer), unique in the service and never
 * the service's own, and the pid and uid of every producer ever connected, so its packets keep them
 * after it disconnects. A writer that retires gives up its mapping: a new writer with the recycled id
 * gets a new sequence id (buffers keep the old one for the old writer's chunks). Service thread only,
 * except {@link #claimSlotId}.
 */
final class SequenceRegistry implements SequenceIdentity {
    private final Map<Long, Integer> sequenceIds = new HashMap<>();
    /** Per producer: {pid, uid, 1 if connected in this JVM}. */
    private final Map<Integer, int[]> producers = new HashMap<>();
    private int nextSequenceId = TracingService.SERVICE_SEQUENCE_ID + 1;
    /**
     * Ids a slot can hold that a sequence has had (assigned, adopted, or claimed by a writer that opens
     * its sequence itself): none is given out twice. Set by CAS, from the service thread and from writer
     * threads ({@link #claimSlotId}); whoever sets a bit has the id.
     */
    private final AtomicLongArray slotIdsUsed = new AtomicLongArray((WireFormat.MAX_SLOT_SEQUENCE_ID >>> 6) + 1);

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
        if (!sequenceIds.containsKey(key) && claimSlotId(proposed)) {
            sequenceIds.put(key, proposed);
        }
    }

    /**
     * A writer that opened its sequence itself ({@link io.jtrace.service.buffer.Promotion}) claimed its
     * proposed id then ({@link #claimSlotId}) and wrote packets with it: the id is the writer's.
     */
    void adopt(int producerId, int writerId, int claimed) {
        sequenceIds.putIfAbsent(key(producerId, writerId), claimed);
    }

    /**
     * Any thread: takes {@code id} for a sequence if a slot can hold it and no sequence has had it;
     * returns whether it did.
     */
    boolean claimSlotId(int id) {
        if (id <= TracingService.SERVICE_SEQUENCE_ID || id > WireFormat.MAX_SLOT_SEQUENCE_ID) {
            return false;
        }
        long bit = 1L << id;
        int word = id >>> 6;
        long now;
        do {
            now = slotIdsUsed.get(word);
            if ((now & bit) != 0) {
                return false;
            }
        } while (!slotIdsUsed.compareAndSet(word, now, now | bit));
        return true;
    }

    private int assign() {
        while (nextSequenceId <= WireFormat.MAX_SLOT_SEQUENCE_ID) {
            int id = nextSequenceId++;
            if (claimSlotId(id)) {
                return id;
            }
        }
        return nextSequenceId++;
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

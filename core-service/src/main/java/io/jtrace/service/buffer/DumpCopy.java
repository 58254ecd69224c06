package io.jtrace.service.buffer;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A read-only copy of a {@link TraceBuffer} for a dump of a running session ({@link TraceBuffer#copy}):
 * its ring, counters, sequences and chunk records, the records re-linked to the copied sequences.
 */
final class DumpCopy {
    private DumpCopy() {}

    static TraceBuffer of(TraceBuffer source, SequenceIdentity identity) {
        TraceBuffer copy = new TraceBuffer(source.capacity, source.policy);
        System.arraycopy(source.ring, 0, copy.ring, 0, source.capacity);
        copy.counters.copyFrom(source.counters);
        copy.writeV = source.writeV;
        copy.used = source.used;
        copy.usedAfterLastRead = source.usedAfterLastRead;
        Map<SequenceState, SequenceState> copies = new IdentityHashMap<>();
        for (SequenceState seq : source.retired) {
            SequenceState c = seq.copy();
            copies.put(seq, c);
            copy.retired.addLast(c);
        }
        for (SequenceState seq : source.sequences.values()) {
            SequenceState c = seq.copy();
            copies.put(seq, c);
            copy.sequences.put(c.key, c);
        }
        for (ChunkRecord record : source.byAge) {
            if (record.dead) {
                continue;
            }
            SequenceState seq = copies.get(record.sequence);
            ChunkRecord c = new ChunkRecord().init(seq, record.chunkId, record.ordinal, record.vstart, record.offset,
                    record.size);
            c.packetCount = record.packetCount;
            c.flags = record.flags;
            c.complete = record.complete;
            seq.chunks.add(c);
            copy.byAge.addLast(c);
        }
        for (SequenceState c : copies.values()) {
            TraceBuffer.sequenceIdOf(c, identity);
        }
        return copy;
    }
}

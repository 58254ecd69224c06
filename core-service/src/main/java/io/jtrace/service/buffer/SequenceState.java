package io.jtrace.service.buffer;

import java.util.TreeSet;

/**
 * One writer's sequence as the trace buffer holds it: its stored chunks by ordinal, where reading has
 * got to, a packet fragment waiting for its rest, and the chunks known lost (reported as
 * {@code previous_packet_dropped} on the first packet after them). The buffer's thread only.
 */
final class SequenceState {
    final SequenceKey key;
    final ChunkIndex chunks = new ChunkIndex();
    boolean anyChunk;
    int maxChunkId;
    long maxOrdinal;
    /** Ordinal of the chunk the next read expects; -1 before the first read. */
    long nextOrdinal = -1;
    /**
     * A chunk read while its writer still held it (a flush's copy; see {@link TraceBuffer#readAll}): its
     * ordinal, -1 for none, and where the read stopped in it. The copy that comes next for that chunk
     * (the next flush's, its commit, the scrape at the end) is read on from there.
     */
    long partialOrdinal = -1;
    int partialPos;
    int partialPackets;
    boolean lossPending;
    /**
     * Set at first and by every loss, cleared by a packet flagged INCREMENTAL_STATE_CLEARED: until then
     * the packets that need incremental state cannot be decoded (their interned names or clock base are
     * not in the trace, or went with the loss). As in trace_processor, a sequence starts out waiting: its
     * first packets may have been lost without a trace (a scrape torn by the writer, a writer id reused);
     * only a trusted writer's sequence read from its chunk 0 starts without (see TraceBuffer#readSequence).
     */
    boolean awaitingIncrementalState = true;
    boolean firstPacketEmitted;
    /** trusted_packet_sequence_id, fixed on first read or at retirement; 0 until then. */
    int sequenceId;
    /** Start of a packet whose rest is in the next chunk, or null. */
    byte[] pendingFragment;
    /**
     * A run of consecutive chunks lost below every stored one (the usual ring overwrite), or -1s:
     * bounded, so a ring buffer never read keeps no growing record of what it overwrote.
     */
    long lostRunFrom = -1;
    long lostRunTo = -1;
    /** Other lost chunks (out-of-order commits meeting overwrites): rare and few. */
    final TreeSet<Long> lostOrdinals = new TreeSet<>();

    SequenceState(SequenceKey key) {
        this.key = key;
    }

    /** The same state without its chunks (the buffer's copy adds copies of those). */
    SequenceState copy() {
        SequenceState c = new SequenceState(key);
        c.anyChunk = anyChunk;
        c.maxChunkId = maxChunkId;
        c.maxOrdinal = maxOrdinal;
        c.nextOrdinal = nextOrdinal;
        c.partialOrdinal = partialOrdinal;
        c.partialPos = partialPos;
        c.partialPackets = partialPackets;
        c.lossPending = lossPending;
        c.awaitingIncrementalState = awaitingIncrementalState;
        c.firstPacketEmitted = firstPacketEmitted;
        c.sequenceId = sequenceId;
        c.pendingFragment = pendingFragment == null ? null : pendingFragment.clone();
        c.lostRunFrom = lostRunFrom;
        c.lostRunTo = lostRunTo;
        c.lostOrdinals.addAll(lostOrdinals);
        return c;
    }

    /** A chunk with {@code chunkId} at {@code ordinal} arrived: the newest seen so far, if it is. */
    void arrived(long ordinal, int chunkId) {
        if (!anyChunk || ordinal > maxOrdinal) {
            anyChunk = true;
            maxOrdinal = ordinal;
            maxChunkId = chunkId;
        }
    }

    /** Records a lost chunk so the loss is reported on the first packet after it, not before. */
    void lost(long ordinal) {
        if (nextOrdinal >= 0 && ordinal < nextOrdinal) {
            lossPending = true;
        } else if (lostRunFrom < 0) {
            lostRunFrom = ordinal;
            lostRunTo = ordinal;
        } else if (ordinal == lostRunTo + 1) {
            lostRunTo = ordinal;
        } else if (ordinal == lostRunFrom - 1) {
            lostRunFrom = ordinal;
        } else if (ordinal < lostRunFrom || ordinal > lostRunTo) {
            lostOrdinals.add(ordinal);
        }
    }

    /** How many of the ordinals in [from, to) are known to be lost. */
    long lostBetween(long from, long to) {
        long run = lostRunFrom < 0 ? 0 : Math.max(0, Math.min(to, lostRunTo + 1) - Math.max(from, lostRunFrom));
        return run + lostOrdinals.subSet(from, to).size();
    }

    /** Forgets losses below {@code ordinal}; returns whether there were any. */
    boolean takeLossesBefore(long ordinal) {
        boolean any = false;
        // Checked first: on every chunk read, and nearly always empty; the view below boxes the ordinal.
        if (!lostOrdinals.isEmpty() && lostOrdinals.first() < ordinal) {
            lostOrdinals.headSet(ordinal).clear();
            any = true;
        }
        if (lostRunFrom >= 0 && lostRunFrom < ordinal) {
            any = true;
            if (lostRunTo < ordinal) {
                lostRunFrom = -1;
                lostRunTo = -1;
            } else {
                lostRunFrom = ordinal + 1;
            }
        }
        return any;
    }
}

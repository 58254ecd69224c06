package io.jtrace.shm.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.TracePacket;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.testing.ChunkFrames.Copy;
import io.jtrace.shm.testing.ChunkFrames.Frame;
import io.jtrace.shm.writer.CommitRequest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one writer's sequence the way the service does, from chunks copied out of the SMB at commit
 * time and the patches that came with the commits:
 * <ol>
 *   <li>applies each patch to its chunk's copy (offset counted from the payload start), clearing "needs
 *       patching" on the patch without {@code hasMorePatches};</li>
 *   <li>walks the chunks in chunk-id order (wrap-aware), gluing a packet's fragments across consecutive
 *       chunks as the continuation flags say;</li>
 *   <li>skips drop markers, recording that a loss happened before the next packet.</li>
 * </ol>
 * Everything a well-behaved writer never produces (a gap in chunk ids, a broken continuation, a patch
 * outside the chunk's spanning packet, a chunk still needing patches, ...) is listed in
 * {@link Result#anomalies()}.
 */
public final class SequenceReader {
    private SequenceReader() {}

    /** Stands in the timeline for packets lost before the next packet (reported once per stretch). */
    public enum Marker { LOSS }

    public static final Marker LOSS = Marker.LOSS;

    public static final class Result {
        private final List<Object> items = new ArrayList<>();
        private final List<String> anomalies = new ArrayList<>();
        private final List<Copy> chunks = new ArrayList<>();
        private int dropMarkers;
        private int patchesApplied;
        private boolean incompleteTail;

        /** Whole packets (byte[]) and {@link #LOSS} markers, in sequence order. */
        public List<Object> items() {
            return items;
        }

        /** The whole packets' bytes, losses left out. */
        public List<byte[]> packets() {
            List<byte[]> out = new ArrayList<>();
            for (Object o : items) {
                if (o instanceof byte[] b) {
                    out.add(b);
                }
            }
            return out;
        }

        public List<TracePacket> parsed() {
            List<TracePacket> out = new ArrayList<>();
            for (byte[] b : packets()) {
                out.add(ChunkFrames.parse(b));
            }
            return out;
        }

        /** Parsed packets and {@link #LOSS} markers, for one {@code assertEquals}. */
        public List<Object> timeline() {
            List<Object> out = new ArrayList<>();
            for (Object o : items) {
                out.add(o instanceof byte[] b ? ChunkFrames.parse(b) : o);
            }
            return out;
        }

        public List<String> anomalies() {
            return anomalies;
        }

        /** The chunks in chunk-id order, patches applied. */
        public List<Copy> chunks() {
            return chunks;
        }

        public int dropMarkers() {
            return dropMarkers;
        }

        public int patchesApplied() {
            return patchesApplied;
        }

        /** The last chunk promised a continuation that never came (the writer is still in that packet). */
        public boolean incompleteTail() {
            return incompleteTail;
        }

        public long losses() {
            return items.stream().filter(o -> o == LOSS).count();
        }

        /** Asserts the sequence is well formed: no anomaly and no packet left half-way. */
        public Result assertWellFormed() {
            assertEquals(List.of(), anomalies, "anomalies in the sequence");
            assertEquals(false, incompleteTail, "the sequence ends inside a packet");
            return this;
        }
    }

    /** Reads {@code chunks} (all of one writer, in commit order) with {@code patches} (in arrival order). */
    public static Result read(List<Copy> chunks, List<CommitRequest.Patch> patches) {
        Result result = new Result();
        if (chunks.isEmpty()) {
            for (CommitRequest.Patch p : patches) {
                result.anomalies.add("patch for unknown chunk " + Integer.toUnsignedString(p.chunkId()));
            }
            return result;
        }
        // Patch copies of the payloads, so the caller's copies stay as committed.
        Map<Integer, Copy> byId = new HashMap<>();
        Map<Integer, Boolean> lastPatchSeen = new HashMap<>();
        for (Copy c : chunks) {
            if (byId.put(c.chunkId(), c.withPayload(c.payload().clone(), c.flags())) != null) {
                result.anomalies.add("chunk id " + Integer.toUnsignedString(c.chunkId()) + " committed twice");
            }
        }
        for (CommitRequest.Patch p : patches) {
            String id = Integer.toUnsignedString(p.chunkId());
            Copy c = byId.get(p.chunkId());
            if (c == null) {
                result.anomalies.add("patch for unknown chunk " + id);
                continue;
            }
            if (p.offset() < 0 || p.offset() > c.payload().length - 4) {
                result.anomalies.add("patch offset " + p.offset() + " outside chunk " + id);
                continue;
            }
            if ((c.flags() & ChunkHeader.FLAG_NEEDS_PATCHING) == 0) {
                result.anomalies.add(lastPatchSeen.containsKey(p.chunkId())
                        ? "patch for chunk " + id + " after its last patch"
                        : "patch for chunk " + id + " that does not need patching");
            }
            List<Frame> frames;
            try {
                frames = c.frames();
            } catch (IllegalStateException e) {
                result.anomalies.add(e.getMessage());
                continue;
            }
            // Only size fields of the packet continuing on the next chunk are patched.
            Frame last = frames.isEmpty() ? null : frames.get(frames.size() - 1);
            if (last == null || last.isDropMarker() || p.offset() < last.contentOffset()
                    || p.offset() + 4 > last.contentOffset() + last.size()) {
                result.anomalies.add("patch at " + p.offset() + " of chunk " + id + " is not inside its last fragment");
            }
            byte[] payload = c.payload();
            payload[p.offset()] = (byte) p.value();
            payload[p.offset() + 1] = (byte) (p.value() >>> 8);
            payload[p.offset() + 2] = (byte) (p.value() >>> 16);
            payload[p.offset() + 3] = (byte) (p.value() >>> 24);
            result.patchesApplied++;
            if (!p.hasMorePatches()) {
                lastPatchSeen.put(p.chunkId(), true);
                byId.put(p.chunkId(), c.withPayload(payload, c.flags() & ~ChunkHeader.FLAG_NEEDS_PATCHING));
            }
        }

        // Chunk-id order across the 2^32 wrap: relative to the first committed chunk.
        int base = chunks.get(0).chunkId();
        List<Copy> ordered = new ArrayList<>(byId.values());
        ordered.sort(Comparator.comparingInt(c -> c.chunkId() - base));
        result.chunks.addAll(ordered);

        ByteArrayOutputStream pending = null;
        boolean lossPending = false;
        Integer previousId = null;
        for (Copy c : ordered) {
            String id = Integer.toUnsignedString(c.chunkId());
            if (previousId != null && c.chunkId() != previousId + 1) {
                result.anomalies.add("gap in chunk ids before " + id);
                pending = null;
                lossPending = true;
            }
            previousId = c.chunkId();
            if (c.hasFlag(ChunkHeader.FLAG_NEEDS_PATCHING)) {
                result.anomalies.add("chunk " + id + " still needs patching");
            }
            if (c.packetCount() > ChunkHeader.MAX_PACKETS) {
                result.anomalies.add("chunk " + id + " has " + c.packetCount() + " packets");
            }
            List<Frame> frames;
            try {
                frames = c.frames();
            } catch (IllegalStateException e) {
                result.anomalies.add(e.getMessage());
                pending = null;
                lossPending = true;
                continue;
            }
            if (frames.isEmpty() && c.hasFlag(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT)) {
                result.anomalies.add("chunk " + id + " continues on the next chunk but has no fragment");
            }
            for (int i = 0; i < frames.size(); i++) {
                Frame f = frames.get(i);
                boolean first = i == 0;
                boolean last = i == frames.size() - 1;
                boolean fromPrev = first && c.hasFlag(ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV);
                boolean onNext = last && c.hasFlag(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT);
                if (f.isDropMarker()) {
                    result.dropMarkers++;
                    if (fromPrev || onNext) {
                        result.anomalies.add("drop marker in chunk " + id + " flagged as a continuation");
                    }
                    pending = null;
                    lossPending = true;
                    continue;
                }
                if (fromPrev) {
                    if (pending == null) {
                        result.anomalies.add("chunk " + id + " continues a packet whose beginning is missing");
                        lossPending = true;
                        continue;
                    }
                } else if (first && pending != null) {
                    result.anomalies.add("chunk " + id + " does not carry the continuation its predecessor promised");
                    pending = null;
                    lossPending = true;
                }
                if (pending == null) {
                    pending = new ByteArrayOutputStream();
                }
                pending.write(c.payload(), f.contentOffset(), f.size());
                if (onNext) {
                    continue;
                }
                if (lossPending) {
                    result.items.add(LOSS);
                    lossPending = false;
                }
                byte[] packet = pending.toByteArray();
                result.items.add(c.hasFlag(ChunkHeader.FLAG_FILE_FRAMED) ? ChunkFrames.withoutSequenceIdSlot(packet) : packet);
                pending = null;
            }
        }
        if (pending != null) {
            result.incompleteTail = true;
        }
        if (lossPending) {
            result.items.add(LOSS);
        }
        return result;
    }
}

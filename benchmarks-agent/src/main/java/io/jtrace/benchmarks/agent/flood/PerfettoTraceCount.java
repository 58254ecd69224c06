package io.jtrace.benchmarks.agent.flood;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a jtrace trace file holds, read at the protobuf wire level (this jar carries no jtrace classes):
 * slice begins and ends on the sequences that interned the flood's category (not, say, the GC's), the agent's {@code jtrace: lost track events} counter, packets flagged
 * {@code previous_packet_dropped}, and packets trace_processor would skip because their sequence's
 * incremental state is not valid (after a loss, before the sequence's next INCREMENTAL_STATE_CLEARED).
 */
record PerfettoTraceCount(long begins, long ends, long lostCounter, long droppedFlags, long undecodable) {
    private static final String LOST_TRACK = "jtrace: lost track events";

    static PerfettoTraceCount of(Path file, String category) throws IOException {
        long begins = 0;
        long ends = 0;
        long dropped = 0;
        long undecodable = 0;
        Long lostTrack = null; // a uint64 uuid: any long, negative ones included
        long lost = -1;
        Map<Long, Boolean> valid = new HashMap<>();
        Set<Long> counted = new HashSet<>();
        Map<Long, Long> counterValues = new HashMap<>();
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 20))) {
            while (true) {
                long tag;
                try {
                    tag = varint(in);
                } catch (EOFException end) {
                    break;
                }
                int length = (int) varint(in);
                byte[] packet = new byte[length];
                in.readFully(packet);
                if (tag != (1 << 3 | 2)) {
                    continue;
                }
                Packet p = Packet.parse(packet);
                if (p.previousPacketDropped) {
                    dropped++;
                    valid.put(p.sequenceId, false);
                }
                if ((p.sequenceFlags & 1) != 0) {
                    valid.put(p.sequenceId, true);
                }
                if ((p.sequenceFlags & 2) != 0 && !valid.getOrDefault(p.sequenceId, false)) {
                    undecodable++;
                    continue;
                }
                if (p.internedCategories.contains(category)) {
                    counted.add(p.sequenceId);
                }
                if (LOST_TRACK.equals(p.trackName)) {
                    lostTrack = p.trackUuid;
                }
                boolean ours = counted.contains(p.sequenceId);
                switch (p.eventType) {
                    case 1 -> begins += ours ? 1 : 0;
                    case 2 -> ends += ours ? 1 : 0;
                    case 4 -> counterValues.put(p.eventTrack, p.counterValue);
                    default -> { }
                }
            }
        }
        if (lostTrack != null && counterValues.containsKey(lostTrack)) {
            lost = counterValues.get(lostTrack);
        }
        return new PerfettoTraceCount(begins, ends, lost, dropped, undecodable);
    }

    private static long varint(DataInputStream in) throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IOException("malformed varint");
    }

    /** The few fields of a TracePacket the count needs. */
    private static final class Packet {
        long sequenceId;
        long sequenceFlags;
        boolean previousPacketDropped;
        int eventType;
        long eventTrack;
        long counterValue;
        long trackUuid;
        String trackName;
        /** All of them: one packet may intern several, the flood's among others. */
        final List<String> internedCategories = new ArrayList<>(1);

        static Packet parse(byte[] b) {
            Packet p = new Packet();
            Wire w = new Wire(b, 0, b.length);
            while (w.more()) {
                int field = w.field();
                switch (field) {
                    case 10 -> p.sequenceId = w.varint();
                    case 13 -> p.sequenceFlags = w.varint();
                    case 42 -> p.previousPacketDropped = w.varint() != 0;
                    case 11 -> {
                        Wire e = w.nested();
                        while (e.more()) {
                            switch (e.field()) {
                                case 9 -> p.eventType = (int) e.varint();
                                case 11 -> p.eventTrack = e.varint();
                                case 30 -> p.counterValue = e.varint();
                                default -> e.skip();
                            }
                        }
                    }
                    case 12 -> {
                        Wire interned = w.nested();
                        while (interned.more()) {
                            if (interned.field() == 1) {
                                Wire c = interned.nested();
                                while (c.more()) {
                                    if (c.field() == 2) {
                                        p.internedCategories.add(c.string());
                                    } else {
                                        c.skip();
                                    }
                                }
                            } else {
                                interned.skip();
                            }
                        }
                    }
                    case 60 -> {
                        Wire d = w.nested();
                        while (d.more()) {
                            switch (d.field()) {
                                case 1 -> p.trackUuid = d.varint();
                                case 2 -> p.trackName = d.string();
                                default -> d.skip();
                            }
                        }
                    }
                    default -> w.skip();
                }
            }
            return p;
        }
    }

    /** A cursor over protobuf fields in {@code b[pos, end)}. */
    private static final class Wire {
        private final byte[] b;
        private int pos;
        private final int end;
        private int wireType;

        Wire(byte[] b, int pos, int end) {
            this.b = b;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        int field() {
            long tag = varint();
            wireType = (int) (tag & 7);
            return (int) (tag >>> 3);
        }

        long varint() {
            long result = 0;
            for (int shift = 0; ; shift += 7) {
                int x = b[pos++];
                result |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return result;
                }
            }
        }

        Wire nested() {
            int length = (int) varint();
            Wire w = new Wire(b, pos, pos + length);
            pos += length;
            return w;
        }

        String string() {
            int length = (int) varint();
            String s = new String(b, pos, length, StandardCharsets.UTF_8);
            pos += length;
            return s;
        }

        void skip() {
            switch (wireType) {
                case 0 -> varint();
                case 1 -> pos += 8;
                case 2 -> {
                    int length = (int) varint(); // before the +=, which would read pos ahead of the varint
                    pos += length;
                }
                case 5 -> pos += 4;
                default -> throw new IllegalStateException("wire type " + wireType);
            }
        }
    }
}

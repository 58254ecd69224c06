package io.jtrace.service.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PacketValidatorTest {
    private static final int[] FIELDS = {1, 2, 3, 8, 10, 11, 12, 13, 15, 16, 42, 58, 59, 60, 79, 87, 100, 2000, 1 << 20};
    private static final int[] WIRE_TYPES = {0, 1, 2, 5};

    private static PacketValidator.Verdict check(byte[] packet) {
        // Placed inside a larger array, as in the ring: nothing outside [start, start + size) may matter.
        byte[] ring = new byte[packet.length + 20];
        Arrays.fill(ring, (byte) 0x80);
        System.arraycopy(packet, 0, ring, 7, packet.length);
        return PacketValidator.check(ring, 7, packet.length);
    }

    /** The same judgement made with protobuf's own parser: the walk must never accept what it reads differently. */
    private static PacketValidator.Verdict reference(byte[] packet) {
        CodedInputStream in = CodedInputStream.newInstance(packet);
        boolean describesTrack = false;
        try {
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                int field = tag >>> 3;
                if (field == 3 || field == 10 || field == 42 || field == 79) {
                    return PacketValidator.Verdict.SETS_TRUSTED_FIELD;
                }
                int wireType = tag & 7;
                if (wireType != 0 && wireType != 1 && wireType != 2 && wireType != 5) {
                    return PacketValidator.Verdict.MALFORMED;
                }
                describesTrack |= field == 60;
                in.skipField(tag);
            }
        } catch (InvalidProtocolBufferException e) {
            return PacketValidator.Verdict.MALFORMED;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return describesTrack ? PacketValidator.Verdict.DESCRIBES_TRACK : PacketValidator.Verdict.OK;
    }

    private static byte[] randomPacket(SplittableRandom random) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        int fields = random.nextInt(6);
        for (int i = 0; i < fields; i++) {
            int field = FIELDS[random.nextInt(FIELDS.length)];
            switch (WIRE_TYPES[random.nextInt(WIRE_TYPES.length)]) {
                case 0:
                    out.writeUInt64(field, random.nextBoolean() ? random.nextInt(200) : random.nextLong());
                    break;
                case 1:
                    out.writeFixed64(field, random.nextLong());
                    break;
                case 2:
                    byte[] value = new byte[random.nextBoolean() ? random.nextInt(10) : random.nextInt(400)];
                    random.nextBytes(value);
                    out.writeByteArray(field, value);
                    break;
                default:
                    out.writeFixed32(field, random.nextInt());
                    break;
            }
        }
        out.flush();
        return bytes.toByteArray();
    }

    @Test
    void acceptsTheSteadyStatePacketsTheAgentWrites() {
        byte[] begin = TracePacket.newBuilder().setTimestamp(81).setSequenceFlags(2)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).addCategoryIids(1).setNameIid(1))
                .build().toByteArray();
        assertEquals(PacketValidator.Verdict.OK, check(begin));
    }

    @Test
    void aTrackDescriptorIsRecognisedSoItsPacketCarriesThePid() {
        byte[] packet = TracePacket.newBuilder().setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(5).setName("t"))
                .build().toByteArray();
        assertEquals(PacketValidator.Verdict.DESCRIBES_TRACK, check(packet));
    }

    @Test
    void refusesEveryTrustedFieldWhateverItsWireType() throws IOException {
        for (int field : new int[] {3, 10, 42, 79}) {
            for (int wireType : WIRE_TYPES) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                CodedOutputStream out = CodedOutputStream.newInstance(bytes);
                out.writeUInt64(8, 1); // a harmless field first: the check looks at every field
                out.writeTag(field, wireType);
                out.writeRawBytes(new byte[] {1, 0, 0, 0, 0, 0, 0, 0});
                out.flush();
                assertEquals(PacketValidator.Verdict.SETS_TRUSTED_FIELD, check(bytes.toByteArray()),
                        "field " + field + " wire type " + wireType);
            }
        }
    }

    @Test
    void refusesFieldZeroGroupsAndReservedWireTypes() {
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x00, 0x01}));
        for (int wireType : new int[] {3, 4, 6, 7}) {
            assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {(byte) (1 << 3 | wireType), 0x01}),
                    "wire type " + wireType);
        }
    }

    @Test
    void refusesAFieldThatRunsPastThePacketsEnd() {
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x08}), "varint missing");
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x08, (byte) 0x80}), "varint cut");
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x09, 1, 2, 3}), "fixed64 cut");
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x0D, 1, 2}), "fixed32 cut");
        assertEquals(PacketValidator.Verdict.MALFORMED, check(new byte[] {0x12, 5, 1, 2}), "length past the end");
        assertEquals(PacketValidator.Verdict.MALFORMED,
                check(new byte[] {0x12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1}),
                "length near 2^31");
    }

    @Test
    void agreesWithProtobufsParserOnRandomAndMutatedPackets() throws IOException {
        SplittableRandom random = new SplittableRandom(20261123);
        int accepted = 0;
        for (int i = 0; i < 200_000; i++) {
            byte[] packet = randomPacket(random);
            PacketValidator.Verdict expected = reference(packet);
            assertEquals(expected, check(packet), () -> "well-formed packet " + Arrays.toString(packet));
            if (expected.valid()) {
                accepted++;
            }
            byte[] mutated = mutate(packet, random);
            PacketValidator.Verdict ours = check(mutated);
            PacketValidator.Verdict theirs = reference(mutated);
            // Ours may be stricter (it refuses over-long encodings of tags and lengths), never laxer.
            if (ours.valid() || ours == PacketValidator.Verdict.SETS_TRUSTED_FIELD) {
                assertEquals(theirs, ours, () -> "mutated packet " + Arrays.toString(mutated));
            }
            if (!theirs.valid()) {
                assertTrue(!ours.valid(), () -> "accepted what protobuf refuses: " + Arrays.toString(mutated));
            }
        }
        assertTrue(accepted > 10_000, "the generator makes valid packets too: " + accepted);
    }

    private static byte[] mutate(byte[] packet, SplittableRandom random) {
        if (packet.length == 0) {
            return new byte[] {(byte) random.nextInt(256)};
        }
        byte[] copy = packet.clone();
        switch (random.nextInt(3)) {
            case 0:
                copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
                return copy;
            case 1:
                return Arrays.copyOf(copy, random.nextInt(copy.length));
            default:
                byte[] longer = Arrays.copyOf(copy, copy.length + 1 + random.nextInt(4));
                for (int i = copy.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                return longer;
        }
    }
}

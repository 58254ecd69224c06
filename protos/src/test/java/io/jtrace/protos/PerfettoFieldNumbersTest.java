package io.jtrace.protos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import org.junit.jupiter.api.Test;

/** Pins the Perfetto wire field numbers that the rest of jtrace relies on. */
class PerfettoFieldNumbersTest {

  private static void assertField(Descriptor message, String name, int number) {
    FieldDescriptor field = message.findFieldByName(name);
    assertNotNull(field, message.getFullName() + " has no field " + name);
    assertEquals(number, field.getNumber(), message.getFullName() + "." + name);
  }

  @Test
  void tracePacket() {
    Descriptor d = TracePacket.getDescriptor();
    assertField(d, "timestamp", 8);
    assertField(d, "timestamp_clock_id", 58);
    assertField(d, "track_event", 11);
    assertField(d, "track_descriptor", 60);
    assertField(d, "interned_data", 12);
    assertField(d, "sequence_flags", 13);
    assertField(d, "trace_packet_defaults", 59);
    assertField(d, "clock_snapshot", 6);
    assertField(d, "trace_config", 33);
    assertField(d, "trace_stats", 35);
    assertField(d, "first_packet_on_sequence", 87);
    assertField(d, "trusted_uid", 3);
    assertField(d, "trusted_packet_sequence_id", 10);
    assertField(d, "trusted_pid", 79);
    assertField(d, "previous_packet_dropped", 42);
    assertEquals("data", d.findFieldByName("track_event").getContainingOneof().getName());
    assertEquals(1, Trace.getDescriptor().findFieldByName("packet").getNumber());
  }

  @Test
  void trackDescriptors() {
    Descriptor t = TrackDescriptor.getDescriptor();
    assertField(t, "uuid", 1);
    assertField(t, "name", 2);
    assertField(t, "process", 3);
    assertField(t, "thread", 4);
    assertField(t, "parent_uuid", 5);
    assertField(t, "counter", 8);

    Descriptor p = ProcessDescriptor.getDescriptor();
    assertField(p, "pid", 1);
    assertField(p, "process_name", 6);

    Descriptor th = ThreadDescriptor.getDescriptor();
    assertField(th, "pid", 1);
    assertField(th, "tid", 2);
    assertField(th, "thread_name", 5);
  }

  @Test
  void trackEvent() {
    Descriptor d = TrackEvent.getDescriptor();
    assertField(d, "type", 9);
    assertField(d, "track_uuid", 11);
    assertField(d, "name_iid", 10);
    assertField(d, "name", 23);
    assertField(d, "category_iids", 3);
    assertField(d, "categories", 22);
    assertField(d, "counter_value", 30);
    assertField(d, "double_counter_value", 44);
    assertField(d, "flow_ids", 47);
    assertField(d, "terminating_flow_ids", 48);
    assertField(d, "debug_annotations", 4);
    assertEquals(
        "name_field", d.findFieldByName("name_iid").getContainingOneof().getName());
    assertEquals(
        "counter_value_field",
        d.findFieldByName("counter_value").getContainingOneof().getName());
  }

  @Test
  void internedData() {
    Descriptor d = InternedData.getDescriptor();
    assertField(d, "event_categories", 1);
    assertField(d, "event_names", 2);
    for (Descriptor m : new Descriptor[] {EventName.getDescriptor(), EventCategory.getDescriptor()}) {
      assertField(m, "iid", 1);
      assertField(m, "name", 2);
    }
  }
}

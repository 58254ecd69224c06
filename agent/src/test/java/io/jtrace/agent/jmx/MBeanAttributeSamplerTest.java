package io.jtrace.agent.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.agent.tracks.CapturedStderr;
import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.DecodedSequences;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jvm.jmx against an MBean server of the test's own: every way an attribute can fail (no such MBean,
 * a getter that throws, a value that is not a number, a composite without the key, an MBean that goes
 * away between the query and the read) is logged once, naming the MBean and attribute, and skipped;
 * the other attributes are sampled on as if nothing happened, and every event written decodes.
 */
class MBeanAttributeSamplerTest {
    private static final String POOL_A = "test:name=a,type=Pool";
    private static final String POOL_B = "test:name=b,type=Pool";
    private static final CompositeType USAGE = usageType();

    @TempDir
    Path dir;

    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private RecordingContext context;
    private PolledSequence sequence;
    private ProcessTrack process;
    private long now = 1_000_000;

    @BeforeEach
    void open() throws Exception {
        context = new RecordingContext(dir, 1 << 20);
        process = new ProcessTrack(1, "test", 5);
        sequence = new PolledSequence(process, context);
        sequence.open();
    }

    @AfterEach
    void close() {
        context.close();
    }

    @Test
    void everyBrokenAttributeIsLoggedOnceByNameAndSkippedWhileTheOthersAreSampled() throws Exception {
        TestBean a = register(POOL_A);
        a.set("Size", () -> 10L);
        a.set("Load", () -> 0.25);
        a.set("Open", () -> Boolean.TRUE);
        a.set("Label", () -> "not a number");
        a.set("Nothing", () -> null);
        a.set("Broken", () -> {
            throw new IllegalStateException("getter failed");
        });
        a.set("Usage", () -> usage(100, 200));
        MBeanAttributeSampler sampler = sampler(
                "test:type=Missing/Size",
                POOL_A + "/Broken",
                POOL_A + "/Label",
                POOL_A + "/Nothing",
                POOL_A + "/NoSuchAttribute",
                POOL_A + "/Usage/max",
                POOL_A + "/Size/used",
                POOL_A + "/Size",
                POOL_A + "/Load",
                POOL_A + "/Open",
                POOL_A + "/Usage/used");

        List<String> log;
        try (CapturedStderr err = new CapturedStderr()) {
            sample(sampler);
            a.set("Size", () -> 11L);
            a.set("Usage", () -> usage(150, 200));
            sample(sampler);
            sample(sampler);
            log = err.lines();
        }

        DecodedSequences trace = decode();
        assertEquals(List.of(), trace.undecodable());
        assertEquals(List.of(10L, 11L), values(trace, POOL_A + "/Size"), "a long attribute, written when it changes");
        assertEquals(List.of(0.25), values(trace, POOL_A + "/Load"), "a double attribute, written once while it holds");
        assertEquals(List.of(1L), values(trace, POOL_A + "/Open"), "a boolean as 0 or 1");
        assertEquals(List.of(100L, 150L), values(trace, POOL_A + "/Usage/used"), "a composite's key");
        assertEquals(Set.of(POOL_A + "/Size", POOL_A + "/Load", POOL_A + "/Open", POOL_A + "/Usage/used"),
                Set.copyOf(trace.trackNames(process.uuid())), "no track for what could not be read");

        assertLoggedOnce(log, "test:type=Missing/Size", "no MBean matches");
        assertLoggedOnce(log, POOL_A + "/Broken", "getter failed");
        assertLoggedOnce(log, POOL_A + "/Label", "is not numeric (java.lang.String)");
        assertLoggedOnce(log, POOL_A + "/Nothing", "is not numeric (null)");
        assertLoggedOnce(log, POOL_A + "/NoSuchAttribute", "cannot be read");
        assertLoggedOnce(log, POOL_A + "/Usage/max", "has no key 'max'");
        assertLoggedOnce(log, POOL_A + "/Size/used", "is not a composite value");
        assertEquals(7, log.size(), "one line per broken attribute, none for the good ones: " + log);
    }

    @Test
    void aPatternSamplesEveryMatchingMBeanOnItsOwnTrackAsTheyComeAndGo() throws Exception {
        TestBean a = register(POOL_A);
        a.set("Size", () -> 1L);
        MBeanAttributeSampler sampler = sampler("test:type=Pool,*/Size");

        List<String> log;
        try (CapturedStderr err = new CapturedStderr()) {
            sample(sampler);
            TestBean b = register(POOL_B);
            b.set("Size", () -> 2L);
            sample(sampler); // b appeared
            a.set("Size", () -> 3L);
            b.set("Size", () -> 4L);
            server.unregisterMBean(new ObjectName(POOL_A));
            sample(sampler); // a is gone: only b is read
            register(POOL_A).set("Size", () -> 5L);
            sample(sampler); // a is back
            log = err.lines();
        }

        DecodedSequences trace = decode();
        assertEquals(List.of(), trace.undecodable());
        assertEquals(List.of(1L, 5L), values(trace, POOL_A + "/Size"), "a's track holds while a is away");
        assertEquals(List.of(2L, 4L), values(trace, POOL_B + "/Size"));
        assertEquals(List.of(), log, "MBeans coming and going is no error");
    }

    @Test
    void anMBeanThatGoesAwayBetweenTheQueryAndTheReadIsLoggedOnceAndTheOthersAreRead() throws Exception {
        register(POOL_A).set("Size", () -> 1L);
        register(POOL_B).set("Size", () -> 2L);
        // The server answers the query, then a goes away before its attribute is read, at every sample.
        ObjectName vanishing = new ObjectName(POOL_A);
        MBeanServer racing = (MBeanServer) Proxy.newProxyInstance(MBeanServer.class.getClassLoader(),
                new Class<?>[] {MBeanServer.class}, (proxy, method, args) -> {
                    try {
                        Object result = method.invoke(server, args);
                        if (method.getName().equals("queryNames") && server.isRegistered(vanishing)) {
                            server.unregisterMBean(vanishing);
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        MBeanAttributeSampler sampler = new MBeanAttributeSampler(() -> racing,
                List.of(MBeanAttributeSpec.parse("test:type=Pool,*/Size")), new CounterSet(sequence));

        List<String> log;
        try (CapturedStderr err = new CapturedStderr()) {
            sample(sampler);
            register(POOL_A).set("Size", () -> 1L);
            sample(sampler);
            log = err.lines();
        }

        DecodedSequences trace = decode();
        assertEquals(List.of(), trace.undecodable());
        assertFalse(trace.hasTrack(process.uuid(), POOL_A + "/Size"));
        assertEquals(List.of(2L), values(trace, POOL_B + "/Size"));
        assertLoggedOnce(log, POOL_A + "/Size", "InstanceNotFoundException");
        assertEquals(1, log.size(), log::toString);
    }

    @Test
    void noServerYetMeansNothingWrittenAndNothingLogged() throws Exception {
        register(POOL_A).set("Size", () -> 7L);
        MBeanServer[] up = {null};
        MBeanAttributeSampler sampler = new MBeanAttributeSampler(() -> up[0],
                List.of(MBeanAttributeSpec.parse(POOL_A + "/Size")), new CounterSet(sequence));
        try (CapturedStderr err = new CapturedStderr()) {
            sample(sampler);
            up[0] = server;
            sample(sampler);
            assertEquals(List.of(), err.lines());
        }
        assertEquals(List.of(7L), values(decode(), POOL_A + "/Size"));
    }

    private MBeanAttributeSampler sampler(String... specs) {
        List<MBeanAttributeSpec> parsed = new ArrayList<>();
        for (String s : specs) {
            parsed.add(MBeanAttributeSpec.parse(s));
        }
        return new MBeanAttributeSampler(() -> server, parsed, new CounterSet(sequence));
    }

    private void sample(MBeanAttributeSampler sampler) {
        sequence.beginSample();
        sampler.sample(now);
        now += 1_000_000;
    }

    private DecodedSequences decode() throws Exception {
        sequence.close();
        return new DecodedSequences(context.read());
    }

    /** A counter's values by its track name as the sampler writes it: the canonical object name, attribute, key. */
    private List<Number> values(DecodedSequences trace, String spec) throws Exception {
        MBeanAttributeSpec parsed = MBeanAttributeSpec.parse(spec);
        return trace.counterValues(trace.track(process.uuid(), parsed.trackName(parsed.objectName())));
    }

    private static void assertLoggedOnce(List<String> log, String spec, String why) throws Exception {
        MBeanAttributeSpec parsed = MBeanAttributeSpec.parse(spec);
        String name = parsed.trackName(parsed.objectName());
        List<String> lines = log.stream().filter(l -> l.contains("attribute " + name + " ")
                || l.contains("attribute " + name + ":")).toList();
        assertEquals(1, lines.size(), "one line naming " + name + " in " + log);
        assertTrue(lines.get(0).contains(why), lines.get(0));
        assertTrue(lines.get(0).contains("WARN"), lines.get(0));
    }

    private TestBean register(String name) throws Exception {
        TestBean bean = new TestBean();
        server.registerMBean(bean, new ObjectName(name));
        return bean;
    }

    private static CompositeDataSupport usage(long used, long committed) {
        try {
            return new CompositeDataSupport(USAGE, new String[] {"used", "committed"}, new Object[] {used, committed});
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static CompositeType usageType() {
        try {
            return new CompositeType("Usage", "memory usage", new String[] {"used", "committed"},
                    new String[] {"used", "committed"}, new OpenType<?>[] {SimpleType.LONG, SimpleType.LONG});
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** An MBean whose attributes are whatever the test sets them to, read at each getAttribute. */
    public static final class TestBean implements DynamicMBean {
        private final Map<String, Supplier<Object>> attributes = new ConcurrentHashMap<>();

        void set(String name, Supplier<Object> value) {
            attributes.put(name, value);
        }

        @Override
        public Object getAttribute(String attribute) throws AttributeNotFoundException {
            Supplier<Object> value = attributes.get(attribute);
            if (value == null) {
                throw new AttributeNotFoundException(attribute);
            }
            return value.get();
        }

        @Override
        public void setAttribute(Attribute attribute) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AttributeList getAttributes(String[] names) {
            return new AttributeList();
        }

        @Override
        public AttributeList setAttributes(AttributeList list) {
            return new AttributeList();
        }

        @Override
        public Object invoke(String action, Object[] params, String[] signature) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return new MBeanInfo(TestBean.class.getName(), "test", null, null, null, null);
        }
    }
}

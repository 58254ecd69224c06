package io.jtrace.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServer;
import javax.management.Notification;
import javax.management.RuntimeMBeanException;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TracingMBeanTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final FakeControl control = new FakeControl();
    private TracingMBean mbean;

    @AfterEach
    void unregister() {
        if (mbean != null) {
            mbean.unregister();
        }
    }

    private BlockingQueue<Notification> listen() throws Exception {
        BlockingQueue<Notification> received = new LinkedBlockingQueue<>();
        server.addNotificationListener(TracingMBean.objectName(), (n, h) -> received.add(n), null, null);
        return received;
    }

    @Test
    void everyAttributeOperationAndParameterHasADescriptionAndAName() throws Exception {
        mbean = TracingMBean.register(control);
        MBeanInfo info = server.getMBeanInfo(TracingMBean.objectName());
        assertTrue(info.getDescription().startsWith("jtrace"));
        assertEquals(3, info.getAttributes().length);
        for (MBeanAttributeInfo a : info.getAttributes()) {
            assertFalse(a.getDescription().equals(a.getName()), "attribute " + a.getName() + " is described");
            assertTrue(a.getType().startsWith("[Ljavax.management.openmbean.CompositeData"), a.getType());
        }
        assertEquals(5, info.getOperations().length);
        for (MBeanOperationInfo op : info.getOperations()) {
            assertTrue(op.getDescription().length() > 30, "operation " + op.getName() + ": " + op.getDescription());
            assertEquals("javax.management.openmbean.CompositeData", op.getReturnType(), op.getName());
            for (MBeanParameterInfo p : op.getSignature()) {
                assertFalse(p.getName().matches("p\\d"), op.getName() + " names its parameters: " + p.getName());
                assertTrue(p.getDescription().length() > 10, op.getName() + "." + p.getName() + " is described");
            }
        }
        assertEquals(3, info.getNotifications().length);
    }

    @Test
    void attributesAreOpenTypes() throws Exception {
        control.sessions = List.of(FakeControl.session("one", "ring", 0, 0, 0));
        mbean = TracingMBean.register(control);
        CompositeData[] sessions = (CompositeData[]) server.getAttribute(TracingMBean.objectName(), "Sessions");
        assertEquals("one", sessions[0].get("name"));
        CompositeData buffer = ((CompositeData[]) sessions[0].get("buffers"))[0];
        assertEquals(50, buffer.get("fillPercent"));
        CompositeData[] sources = (CompositeData[]) server.getAttribute(TracingMBean.objectName(), "DataSources");
        assertEquals("jvm.gc", sources[1].get("name"));
        CompositeData[] producers = (CompositeData[]) server.getAttribute(TracingMBean.objectName(), "Producers");
        assertEquals(List.of("track_event", "jvm.gc"), List.of((String[]) producers[0].get("dataSources")));
    }

    @Test
    void failuresReachTheClientAsJdkExceptionsWithTheMessageOnly() throws Exception {
        mbean = TracingMBean.register(control);
        RuntimeMBeanException bad = assertThrows(RuntimeMBeanException.class, () -> server.invoke(
                TracingMBean.objectName(), "start", new Object[] {"bad"}, new String[] {"java.lang.String"}));
        assertEquals(IllegalArgumentException.class, bad.getCause().getClass());
        assertEquals("unknown jtrace option 'bad'", bad.getCause().getMessage());
        assertNull(bad.getCause().getCause(), "no jtrace exception travels along");
        RuntimeMBeanException refused = assertThrows(RuntimeMBeanException.class, () -> server.invoke(
                TracingMBean.objectName(), "startWithConfig", new Object[] {"x", "f"},
                new String[] {"java.lang.String", "java.lang.String"}));
        assertEquals(IllegalStateException.class, refused.getCause().getClass());
        assertEquals("the service said no", refused.getCause().getMessage());
    }

    @Test
    void startAndStopAreNotifiedWithTheSessionAndItsFile() throws Exception {
        mbean = TracingMBean.register(control);
        BlockingQueue<Notification> received = listen();
        server.invoke(TracingMBean.objectName(), "start", new Object[] {"duration=1s"}, new String[] {"java.lang.String"});
        server.invoke(TracingMBean.objectName(), "stop", new Object[] {"s"}, new String[] {"java.lang.String"});
        Notification started = received.poll(10, TimeUnit.SECONDS);
        Notification stopped = received.poll(10, TimeUnit.SECONDS);
        assertEquals(Notifications.SESSION_STARTED, started.getType());
        assertEquals(Notifications.SESSION_STOPPED, stopped.getType());
        assertEquals("/tmp/s.pftrace", ((CompositeData) stopped.getUserData()).get("file"));
        assertTrue(stopped.getSequenceNumber() > started.getSequenceNumber());
        assertEquals(List.of("start duration=1s", "stop s"), control.calls);
    }

    @Test
    void growingLossesOfARunningSessionAreNotifiedOnceEach() throws Exception {
        mbean = TracingMBean.register(control);
        BlockingQueue<Notification> received = listen();
        control.sessions = List.of(FakeControl.session("s", "file", 0, 0, 0));
        server.invoke(TracingMBean.objectName(), "start", new Object[] {""}, new String[] {"java.lang.String"});
        assertEquals(Notifications.SESSION_STARTED, received.poll(10, TimeUnit.SECONDS).getType());
        control.sessions = List.of(FakeControl.session("s", "file", 3, 1, 2, 5000));
        Notification lost = received.poll(10, TimeUnit.SECONDS);
        assertEquals(Notifications.DATA_LOST, lost.getType());
        CompositeData data = (CompositeData) lost.getUserData();
        assertEquals(4L, data.get("newChunksLost"));
        assertEquals(2L, data.get("newWriterPacketLoss"));
        assertEquals(5000L, data.get("newEventsLost"));
        assertEquals(5000L, data.get("eventsLost"));
        assertTrue(lost.getMessage().contains("5000 track events"), lost.getMessage());
        assertNull(received.poll(3 * LossWatcher.PERIOD_MS, TimeUnit.MILLISECONDS), "no news, no notification");
    }

    /** Two writer drops may stand for millions of events: the events lost grow on their own and are notified. */
    @Test
    void eventsLostGrowingWithoutNewWriterDropsAreNotified() throws Exception {
        control.sessions = List.of(FakeControl.session("s", "file", 0, 0, 2, 100));
        mbean = TracingMBean.register(control);
        BlockingQueue<Notification> received = listen();
        Notification first = received.poll(10, TimeUnit.SECONDS);
        assertEquals(100L, ((CompositeData) first.getUserData()).get("newEventsLost"));
        control.sessions = List.of(FakeControl.session("s", "file", 0, 0, 2, 1_000_100));
        CompositeData data = (CompositeData) received.poll(10, TimeUnit.SECONDS).getUserData();
        assertEquals(1_000_000L, data.get("newEventsLost"));
        assertEquals(0L, data.get("newWriterPacketLoss"));
    }

    @Test
    void aSessionThatStartedBeforeTheMBeanIsWatchedToo() throws Exception {
        control.sessions = List.of(FakeControl.session("boot", "file", 0, 0, 0));
        mbean = TracingMBean.register(control);
        BlockingQueue<Notification> received = listen();
        control.sessions = List.of(FakeControl.session("boot", "file", 0, 0, 5));
        Notification lost = received.poll(10, TimeUnit.SECONDS);
        assertEquals(Notifications.DATA_LOST, lost.getType());
        assertEquals("boot", ((CompositeData) lost.getUserData()).get("session"));
    }

    @Test
    void aRingSessionOverwritingItsOldestDataIsNotALoss() throws Exception {
        mbean = TracingMBean.register(control);
        BlockingQueue<Notification> received = listen();
        control.sessions = List.of(FakeControl.session("s", "ring", 0, 0, 0));
        server.invoke(TracingMBean.objectName(), "start", new Object[] {""}, new String[] {"java.lang.String"});
        assertEquals(Notifications.SESSION_STARTED, received.poll(10, TimeUnit.SECONDS).getType());
        control.sessions = List.of(FakeControl.session("s", "ring", 50, 0, 0));
        assertNull(received.poll(3 * LossWatcher.PERIOD_MS, TimeUnit.MILLISECONDS));
        control.sessions = List.of(FakeControl.session("s", "ring", 60, 0, 1));
        assertEquals(1L, ((CompositeData) received.poll(10, TimeUnit.SECONDS).getUserData()).get("newWriterPacketLoss"));
    }

    @Test
    void aSecondRegistrationIsRefused() throws Exception {
        mbean = TracingMBean.register(control);
        assertThrows(javax.management.InstanceAlreadyExistsException.class, () -> TracingMBean.register(new FakeControl()));
    }
}

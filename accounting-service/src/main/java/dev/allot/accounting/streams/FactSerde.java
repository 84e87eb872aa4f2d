package dev.allot.accounting.streams;

import dev.allot.accounting.book.Fact;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Compact binary form of a {@link Fact} for the internal re-keyed topic (not a public contract).
 *
 * <p>Version 2 dropped the two raw byte arrays version 1 wrote last, always as null (-1 lengths): a fact
 * carries no raw bytes. A version 1 record still reads (its trailing 8 bytes are ignored).
 */
public final class FactSerde implements Serde<Fact>, Serializer<Fact>, Deserializer<Fact> {

    private static final byte VERSION = 2;

    @Override
    public byte[] serialize(String topic, Fact f) {
        if (f == null) {
            return null;
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeByte(f.kind().ordinal());
            out.writeUTF(f.cluster());
            out.writeUTF(f.account());
            out.writeLong(f.start());
            out.writeLong(f.end());
            out.writeDouble(f.amount());
            out.writeBoolean(f.charged());
            nullable(out, f.jobId());
            nullable(out, f.nodeId());
            out.writeInt(f.gpus());
            out.writeUTF(f.sourceTopic());
            out.writeInt(f.sourcePartition());
            out.writeLong(f.sourceOffset());
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Fact deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            in.readByte(); // version: 1 and 2 agree on every field 2 has
            Fact.Kind kind = Fact.Kind.values()[in.readByte()];
            return new Fact(kind, in.readUTF(), in.readUTF(), in.readLong(), in.readLong(), in.readDouble(),
                    in.readBoolean(), nullable(in), nullable(in), in.readInt(), in.readUTF(), in.readInt(),
                    in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void nullable(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    private static String nullable(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    @Override
    public Serializer<Fact> serializer() {
        return this;
    }

    @Override
    public Deserializer<Fact> deserializer() {
        return this;
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
    }
}

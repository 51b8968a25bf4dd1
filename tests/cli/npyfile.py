"""Minimal .npy reader/writer with the standard library only (tests must not
depend on NumPy being installed). Independent of ufjit's own reader."""
import ast
import struct

FORMATS = {"<i8": "q", "<i4": "i", "<i2": "h", "|i1": "b", "<u8": "Q", "<u4": "I", "<u2": "H", "|u1": "B",
           "<f8": "d", "<f4": "f", "<f2": "e", "|b1": "?"}


def write(path, descr, shape, values, fortran=False, version=1):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", repr(tuple(shape)))
    prefix = 10 if version == 1 else 12
    pad = 64 - (prefix + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H" if version == 1 else "<I", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), FORMATS[descr]), *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", "bad magic"
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", data[8:12])
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    body = data[start + hlen:]
    count = 1
    for d in header["shape"]:
        count *= d
    values = list(struct.unpack("<%d%s" % (count, FORMATS[header["descr"]]), body[:count * struct.calcsize(FORMATS[header["descr"]])]))
    return header["descr"], tuple(header["shape"]), header["fortran_order"], values

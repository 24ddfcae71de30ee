#!/usr/bin/python3
"""damage_checkpoint.py -- damaged copies of a valid insdg checkpoint, for the bad-input
corpus (tests/bad_inputs/README.md).

Usage: damage_checkpoint.py DIR

DIR holds the output of `insdg run tests/cases/run_taylor_ckpt.ini --output DIR`:
checkpoint_000002.nc and fields_000002.nc. Writes next to them (each file replaced):

  damaged_every997_at<O>.nc  4 bytes overwritten every 997 bytes from offset O (0, 8, 333, 996)
  damaged_half.nc            the first half of the file
  damaged_empty.nc           an empty file
  damaged_text.nc            a text file
  damaged_flip_data.nc       one byte of a value of u0 in the middle of the data flipped
  damaged_fields.nc          a copy of fields_000002.nc (a field file, not a checkpoint)
  damaged_classic.nc         a classic (CDF-1) NetCDF file
  damaged_other_netcdf4.nc   a NetCDF-4 file that is not an insdg checkpoint
  damaged_legacy.nc          the checkpoint without its insdg_checkpoint_format attribute
  damaged_header.nc          the checkpoint with its time attribute changed
  damaged_format.nc          the checkpoint with insdg_checkpoint_format = 99
  damaged_no_checksums.nc    the checkpoint with element_checksum renamed

Needs python3-netCDF4 and numpy, or else ncgen/ncdump for the NetCDF files (the files
that need netCDF4 are then skipped with a note, and their cases fail).
Prints "damage_checkpoint: ok" at the end.
"""
import os
import shutil
import struct
import subprocess
import sys

try:
    import netCDF4
    import numpy
except ImportError:   # the byte-level files need neither
    netCDF4 = None

SOURCE = 'checkpoint_000002.nc'
FIELDS = 'fields_000002.nc'
OFFSETS = (0, 8, 333, 996)


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)


def every997(data, start):
    b = bytearray(data)
    for i in range(start, len(b) - 3, 997):
        b[i:i + 4] = b'\xde\xad\xbe\xef'
    return bytes(b)


def flip_data(path, data):
    """flip the lowest byte of u0[n/2] where its 8 bytes are stored (the data, not the
    metadata: found by value, so wherever HDF5 put it)"""
    ds = netCDF4.Dataset(path)
    name = 'u0' if 'u0' in ds.variables else next(v for v in ds.variables if ds[v].dimensions == ('node',))
    u = numpy.asarray(ds[name][:], dtype='<f8')
    ds.close()
    for k in range(len(u) // 2, len(u)):
        needle = struct.pack('<d', u[k])
        at = data.find(needle)
        if at >= 0 and data.find(needle, at + 1) < 0:
            b = bytearray(data)
            b[at] ^= 0xff
            return bytes(b)
    sys.exit('damage_checkpoint: no value of u0 found once in %s' % path)


def copy_and_edit(src, dst, edit):
    shutil.copyfile(src, dst)
    ds = netCDF4.Dataset(dst, 'a')
    edit(ds)
    ds.close()


def classic(dst):
    if netCDF4:
        ds = netCDF4.Dataset(dst, 'w', format='NETCDF3_CLASSIC')
        ds.createDimension('node', 4)
        ds.createVariable('u', 'f8', ('node',))[:] = [1.0, 2.0, 3.0, 4.0]
        ds.close()
    else:
        cdl = 'netcdf classic {\ndimensions:\n node = 4 ;\nvariables:\n double u(node) ;\ndata:\n u = 1, 2, 3, 4 ;\n}\n'
        subprocess.run(['ncgen', '-k', 'classic', '-o', dst], input=cdl.encode(), check=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    src = os.path.join(d, SOURCE)
    with open(src, 'rb') as f:
        data = f.read()
    out = lambda name: os.path.join(d, 'damaged_' + name + '.nc')
    for o in OFFSETS:
        write(out('every997_at%d' % o), every997(data, o))
    write(out('half'), data[:len(data) // 2])
    write(out('empty'), b'')
    write(out('text'), b'this is a text file, not a checkpoint\nstep = 2\n')
    shutil.copyfile(os.path.join(d, FIELDS), out('fields'))
    classic(out('classic'))
    if netCDF4 is None:
        print('damage_checkpoint: no python3-netCDF4: the flipped-data and edited copies are not written')
    else:
        write(out('flip_data'), flip_data(src, data))
        ds = netCDF4.Dataset(out('other_netcdf4'), 'w', format='NETCDF4')
        ds.createDimension('node', 4)
        ds.createVariable('u', 'f8', ('node',))[:] = [1.0, 2.0, 3.0, 4.0]
        ds.title = 'some other program\'s NetCDF-4 file'
        ds.close()
        copy_and_edit(src, out('legacy'), lambda ds: ds.delncattr('insdg_checkpoint_format'))
        copy_and_edit(src, out('header'), lambda ds: ds.setncattr('time', numpy.float64(ds.getncattr('time') + 0.01)))
        copy_and_edit(src, out('format'), lambda ds: ds.setncattr('insdg_checkpoint_format', numpy.int32(99)))
        copy_and_edit(src, out('no_checksums'), lambda ds: ds.renameVariable('element_checksum', 'element_sum'))
    print('damage_checkpoint: ok')


if __name__ == '__main__':
    main()

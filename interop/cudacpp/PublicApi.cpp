// include/ufjit/cudacpp.h over interop/cudacpp/Nvrtc.h and the device linker.
#include "codegen/DeviceImage.h"
#include "interop/cudacpp/Nvrtc.h"
#include "ufjit/cudacpp.h"

namespace ufjit::cudacpp {

std::string compile_cuda(const CudaSource &source, const std::string &arch, CodeFormat format) {
  NvrtcSource nvrtc{source.name, source.text, source.include_dirs, source.options};
  switch (format) {
    case CodeFormat::Ptx:
      return nvrtc_compile(nvrtc, arch, NvrtcOutput::Ptx);
    case CodeFormat::LtoIr:
      return nvrtc_compile(nvrtc, arch, NvrtcOutput::LtoIr);
    case CodeFormat::Cubin:
      return nvrtc_compile(nvrtc, arch, NvrtcOutput::Cubin);
    case CodeFormat::Fatbin:
      break;
  }
  throw Error("NVRTC does not write fatbins; ask for PTX, LTO-IR or a cubin");
}

std::string link(const std::string &arch, const std::vector<LinkItem> &inputs) {
  codegen::DeviceImage image;
  for (const LinkItem &item : inputs) {
    codegen::LinkInput input;
    switch (item.format) {
      case CodeFormat::Ptx:
        input.kind = codegen::LinkInput::Kind::Ptx;
        break;
      case CodeFormat::LtoIr:
        input.kind = codegen::LinkInput::Kind::LtoIr;
        break;
      case CodeFormat::Cubin:
        input.kind = codegen::LinkInput::Kind::Cubin;
        break;
      case CodeFormat::Fatbin:
        input.kind = codegen::LinkInput::Kind::Fatbin;
        break;
    }
    input.name = item.name;
    input.bytes = item.bytes;
    image.inputs.push_back(std::move(input));
  }
  return codegen::link_device_image(image, arch);
}

}  // namespace ufjit::cudacpp

#pragma once
/// \file platform.hpp
/// The one place where Windows and Linux differ. On Windows the backend uses the SDK's <d3d12.h>;
/// on Linux it uses vkd3d's headers (<vkd3d_utils.h>), which declare the same interfaces with the
/// Windows calling convention and implement them on Vulkan. The API names are the same, so the
/// rest of the backend is one code path. (DirectX-Headers cannot stand in for vkd3d's headers on
/// Linux: their ABI is System V, vkd3d's is ms_abi.)
///
/// Include this header before any vkd3d header: it must define WIDL_EXPLICIT_AGGREGATE_RETURNS
/// first, or methods that return structs (GetCPUDescriptorHandleForHeapStart, GetDesc) are called
/// with the wrong ABI.

// Methods that return structs (GetDesc, Get*DescriptorHandleForHeapStart) then take a hidden result
// pointer after `this`, as the Windows x64 ABI passes it, on mingw-w64's headers and vkd3d's alike.
#ifndef WIDL_EXPLICIT_AGGREGATE_RETURNS
#define WIDL_EXPLICIT_AGGREGATE_RETURNS
#endif

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <d3d12.h>
#include <dxgi1_4.h>
#else
#ifndef NOMINMAX
#define NOMINMAX // vkd3d_windows.h defines min and max macros otherwise
#endif
#include <vkd3d_utils.h>
#endif

#include <cstdint>
#include <utility>

namespace dmlref::d3d12 {

/// An owning COM pointer (Release on destruction).
template <class T> class com_ptr {
public:
    com_ptr() = default;
    /// Takes over one reference.
    explicit com_ptr(T* raw) noexcept : p_(raw) {}
    com_ptr(const com_ptr& other) noexcept : p_(other.p_) { if (p_) p_->AddRef(); }
    com_ptr(com_ptr&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    com_ptr& operator=(com_ptr other) noexcept { std::swap(p_, other.p_); return *this; }
    ~com_ptr() { if (p_) p_->Release(); }
    T* get() const noexcept { return p_; }
    T* operator->() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    /// The address to receive a new reference (releases the current one).
    T** put() noexcept { *this = com_ptr(); return &p_; }
    void** put_void() noexcept { return reinterpret_cast<void**>(put()); }

private:
    T* p_ = nullptr;
};

namespace platform {

/// The interface ids the backend asks for. vkd3d exports no IID_* symbols (a program defines them
/// with INITGUID in one translation unit), so this header-only backend carries its own copies.
inline constexpr GUID iid_device = {0x189819f1, 0x1db6, 0x4b57, {0xbe, 0x54, 0x18, 0x21, 0x33, 0x9b, 0x85, 0xf7}};
inline constexpr GUID iid_command_queue = {0x0ec870a6, 0x5d7e, 0x4c22, {0x8c, 0xfc, 0x5b, 0xaa, 0xe0, 0x76, 0x16, 0xed}};
inline constexpr GUID iid_command_allocator = {0x6102dee4, 0xaf59, 0x4b09, {0xb9, 0x99, 0xb4, 0x4d, 0x73, 0xf0, 0x9b, 0x24}};
inline constexpr GUID iid_graphics_command_list = {0x5b160d0f, 0xac1b, 0x4185, {0x8b, 0xa8, 0xb3, 0xae, 0x42, 0xa5, 0xa4, 0x55}};
inline constexpr GUID iid_fence = {0x0a753dcf, 0xc4d8, 0x4b91, {0xad, 0xf6, 0xbe, 0x5a, 0x60, 0xd9, 0x5a, 0x76}};
inline constexpr GUID iid_resource = {0x696442be, 0xa72e, 0x4059, {0xbc, 0x79, 0x5b, 0x5c, 0x98, 0x04, 0x0f, 0xad}};
inline constexpr GUID iid_root_signature = {0xc54a6b66, 0x72df, 0x4ee8, {0x8b, 0xe5, 0xa9, 0x46, 0xa1, 0x42, 0x92, 0x14}};
inline constexpr GUID iid_pipeline_state = {0x765a30f3, 0xf624, 0x4c6f, {0xa8, 0x28, 0xac, 0xe9, 0x48, 0x62, 0x24, 0x45}};

/// D3D12CreateDevice on the default adapter at feature level 11_0.
inline HRESULT create_device(ID3D12Device** device) {
    return D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, iid_device, reinterpret_cast<void**>(device));
}

/// The HRESULT of a step that may fail, and the call that returned it.
struct call_result {
    HRESULT result;
    const char* call;
};

#if defined(_WIN32)
/// Whether adapters can be chosen (through DXGI). vkd3d on Linux has no DXGI.
inline constexpr bool have_dxgi = true;

inline constexpr GUID iid_dxgi_factory1 = {0x770aae78, 0xf26f, 0x4dba, {0xa8, 0x29, 0x25, 0x3c, 0x83, 0xd1, 0xb3, 0x87}};
inline constexpr GUID iid_dxgi_factory4 = {0x1bc6ea02, 0xef36, 0x464f, {0xbf, 0x0c, 0x21, 0xca, 0x39, 0xe5, 0x16, 0x8a}};
inline constexpr GUID iid_dxgi_adapter = {0x2411e7e1, 0x12ac, 0x4ccf, {0xbd, 0x14, 0x97, 0x98, 0xe8, 0x53, 0x4d, 0xc0}};

/// D3D12CreateDevice at feature level 11_0 on the WARP adapter (IDXGIFactory4::EnumWarpAdapter).
inline call_result create_device_on_warp(ID3D12Device** device) {
    com_ptr<IDXGIFactory4> factory;
    if (HRESULT hr = CreateDXGIFactory1(iid_dxgi_factory4, factory.put_void()); FAILED(hr))
        return {hr, "CreateDXGIFactory1 (IDXGIFactory4)"};
    com_ptr<IDXGIAdapter> adapter;
    if (HRESULT hr = factory->EnumWarpAdapter(iid_dxgi_adapter, adapter.put_void()); FAILED(hr))
        return {hr, "IDXGIFactory4::EnumWarpAdapter"};
    return {D3D12CreateDevice(adapter.get(), D3D_FEATURE_LEVEL_11_0, iid_device, reinterpret_cast<void**>(device)),
            "D3D12CreateDevice"};
}

/// D3D12CreateDevice at feature level 11_0 on adapter `index` of IDXGIFactory1::EnumAdapters1
/// (DXGI_ERROR_NOT_FOUND past the last one).
inline call_result create_device_on_adapter(std::uint32_t index, ID3D12Device** device) {
    com_ptr<IDXGIFactory1> factory;
    if (HRESULT hr = CreateDXGIFactory1(iid_dxgi_factory1, factory.put_void()); FAILED(hr))
        return {hr, "CreateDXGIFactory1"};
    com_ptr<IDXGIAdapter1> adapter;
    if (HRESULT hr = factory->EnumAdapters1(index, adapter.put()); FAILED(hr)) return {hr, "IDXGIFactory1::EnumAdapters1"};
    return {D3D12CreateDevice(adapter.get(), D3D_FEATURE_LEVEL_11_0, iid_device, reinterpret_cast<void**>(device)),
            "D3D12CreateDevice"};
}

/// The number of adapters IDXGIFactory1::EnumAdapters1 lists (0 when no factory can be made).
inline std::uint32_t adapter_count() {
    com_ptr<IDXGIFactory1> factory;
    if (FAILED(CreateDXGIFactory1(iid_dxgi_factory1, factory.put_void()))) return 0;
    std::uint32_t count = 0;
    for (; count < 4096; ++count) {
        com_ptr<IDXGIAdapter1> adapter;
        if (FAILED(factory->EnumAdapters1(count, adapter.put()))) break;
    }
    return count;
}
#else
/// Whether adapters can be chosen (through DXGI). vkd3d on Linux has no DXGI.
inline constexpr bool have_dxgi = false;

// Without DXGI there is nothing to enumerate: the context refuses these choices before calling.
inline call_result create_device_on_warp(ID3D12Device**) { return {E_NOTIMPL, "IDXGIFactory4::EnumWarpAdapter"}; }
inline call_result create_device_on_adapter(std::uint32_t, ID3D12Device**) {
    return {E_NOTIMPL, "IDXGIFactory1::EnumAdapters1"};
}
inline std::uint32_t adapter_count() { return 0; }
#endif

/// An event a fence can signal, waited on without a timeout (vkd3d 1.2 implements no timed wait).
class event {
public:
#if defined(_WIN32)
    event() : handle_(CreateEventW(nullptr, FALSE, FALSE, nullptr)) {}
    ~event() { if (handle_) CloseHandle(handle_); }
    void wait() const { WaitForSingleObject(handle_, INFINITE); }
#else
    event() : handle_(vkd3d_create_event()) {}
    ~event() { if (handle_) vkd3d_destroy_event(handle_); }
    void wait() const { vkd3d_wait_event(handle_, VKD3D_INFINITE); }
#endif
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    HANDLE handle() const noexcept { return handle_; }

private:
    HANDLE handle_;
};

} // namespace platform
} // namespace dmlref::d3d12

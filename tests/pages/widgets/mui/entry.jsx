// MUI (@mui/material, @mui/x-date-pickers with dayjs): each field as MUI's docs write it, committed
// from the component's own onChange.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import Autocomplete from "@mui/material/Autocomplete";
import Box from "@mui/material/Box";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormLabel from "@mui/material/FormLabel";
import InputLabel from "@mui/material/InputLabel";
import MenuItem from "@mui/material/MenuItem";
import OutlinedInput from "@mui/material/OutlinedInput";
import Radio from "@mui/material/Radio";
import RadioGroup from "@mui/material/RadioGroup";
import Select from "@mui/material/Select";
import Slider from "@mui/material/Slider";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { AdapterDayjs } from "@mui/x-date-pickers/AdapterDayjs";
import { DatePicker } from "@mui/x-date-pickers/DatePicker";
import { LocalizationProvider } from "@mui/x-date-pickers/LocalizationProvider";
import dayjs from "dayjs";

const COUNTRIES = ["Germany", "France", "Italy", "Spain", "Netherlands"];
const EXTRAS = ["Gift wrap", "Insurance", "Greeting card", "Express handling"];
const CUSTOMERS = ["Adventure Works", "Contoso Ltd", "Fabrikam Inc", "Northwind Health", "Northwind Traders", "Tailspin Toys"];

function Country() {
  const [value, setValue] = useState("");
  return (
    <FormControl sx={{ width: 300 }}>
      <InputLabel id="country-label">Country</InputLabel>
      <Select
        labelId="country-label"
        id="country"
        value={value}
        label="Country"
        onChange={(e) => { setValue(e.target.value); reportCommit("country", e.target.value); }}
      >
        {COUNTRIES.map((c) => <MenuItem key={c} value={c}>{c}</MenuItem>)}
      </Select>
    </FormControl>
  );
}

function Carrier() {
  return (
    <FormControl sx={{ width: 300 }} disabled>
      <InputLabel id="carrier-label">Carrier</InputLabel>
      <Select labelId="carrier-label" id="carrier" value="Post" label="Carrier"
        onChange={(e) => reportCommit("carrier", e.target.value)}>
        <MenuItem value="Post">Post</MenuItem>
        <MenuItem value="Courier">Courier</MenuItem>
      </Select>
    </FormControl>
  );
}

function Extras() {
  const [value, setValue] = useState([]);
  return (
    <FormControl sx={{ width: 300 }}>
      <InputLabel id="extras-label">Extras</InputLabel>
      <Select
        labelId="extras-label"
        id="extras"
        multiple
        value={value}
        onChange={(e) => {
          const v = typeof e.target.value === "string" ? e.target.value.split(",") : e.target.value;
          setValue(v);
          reportCommit("extras", v);
        }}
        input={<OutlinedInput id="extras-chips" label="Extras" />}
        renderValue={(selected) => (
          <Box sx={{ display: "flex", flexWrap: "wrap", gap: 0.5 }}>
            {selected.map((s) => <Chip key={s} label={s} />)}
          </Box>
        )}
      >
        {EXTRAS.map((x) => <MenuItem key={x} value={x}>{x}</MenuItem>)}
      </Select>
    </FormControl>
  );
}

function Customer() {
  return (
    <Autocomplete
      disablePortal
      options={CUSTOMERS}
      sx={{ width: 300 }}
      onChange={(e, v) => reportCommit("customer", v)}
      renderInput={(params) => <TextField {...params} label="Customer" />}
    />
  );
}

// The docs' "Load on open" / search-as-you-type pattern: options fetched for what is typed.
function Supplier() {
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState([]);
  const [loading, setLoading] = useState(false);
  const load = async (q) => {
    setLoading(true);
    const res = await fetch(`/api/options?list=customers&q=${encodeURIComponent(q)}`);
    setOptions(await res.json());
    setLoading(false);
  };
  return (
    <Autocomplete
      sx={{ width: 300 }}
      open={open}
      onOpen={() => { setOpen(true); load(""); }}
      onClose={() => setOpen(false)}
      filterOptions={(x) => x}
      options={options}
      loading={loading}
      onInputChange={(e, q, reason) => { if (reason === "input") load(q); }}
      onChange={(e, v) => reportCommit("supplier", v)}
      renderInput={(params) => (
        <TextField
          {...params}
          label="Supplier"
          slotProps={{
            ...params.slotProps,
            input: {
              ...params.slotProps.input,
              endAdornment: (
                <>
                  {loading ? <CircularProgress color="inherit" size={20} /> : null}
                  {params.slotProps.input.endAdornment}
                </>
              ),
            },
          }}
        />
      )}
    />
  );
}

function Billing() {
  const [value, setValue] = useState("Yearly");
  return (
    <FormControl>
      <FormLabel id="billing-label">Billing</FormLabel>
      <RadioGroup row aria-labelledby="billing-label" name="billing" value={value}
        onChange={(e) => { setValue(e.target.value); reportCommit("billing", e.target.value); }}>
        <FormControlLabel value="Monthly" control={<Radio />} label="Monthly" />
        <FormControlLabel value="Yearly" control={<Radio />} label="Yearly" />
        <FormControlLabel value="Never" disabled control={<Radio />} label="Never" />
      </RadioGroup>
    </FormControl>
  );
}

function Volume() {
  const [value, setValue] = useState(50);
  return (
    <Box sx={{ width: 300 }}>
      <Typography id="volume-label" gutterBottom>Volume</Typography>
      <Slider aria-labelledby="volume-label" value={value} min={0} max={100} step={5}
        valueLabelDisplay="auto"
        onChange={(e, v) => { setValue(v); reportCommit("volume", v); }} />
    </Box>
  );
}

function PriceRange() {
  const [value, setValue] = useState([10, 90]);
  return (
    <Box sx={{ width: 300 }}>
      <Typography gutterBottom>Price range</Typography>
      <Slider getAriaLabel={() => "Price range"} value={value} min={0} max={100} step={1}
        valueLabelDisplay="auto" disableSwap
        onChange={(e, v) => { setValue(v); reportCommit("price", v); }} />
    </Box>
  );
}

function ShipDate() {
  const [value, setValue] = useState(null);
  return (
    <DatePicker
      label="Ship date"
      value={value}
      minDate={dayjs("2026-01-01")}
      maxDate={dayjs("2028-12-31")}
      onChange={(v) => {
        setValue(v);
        reportCommit("shipdate", v && v.isValid() ? v.format("YYYY-MM-DD") : null);
      }}
    />
  );
}

function App() {
  const [express, setExpress] = useState(false);
  const [notify, setNotify] = useState(false);
  return (
    <LocalizationProvider dateAdapter={AdapterDayjs}>
      <Stack spacing={3} sx={{ m: 3, maxWidth: 420 }}>
        <Typography variant="h5" component="h1">Order</Typography>
        <Country />
        <Extras />
        <Customer />
        <Supplier />
        <Carrier />
        <FormControlLabel
          control={<Checkbox checked={express}
            onChange={(e) => { setExpress(e.target.checked); reportCommit("express", e.target.checked); }} />}
          label="Express shipping"
        />
        <FormControlLabel
          control={<Switch checked={notify}
            onChange={(e) => { setNotify(e.target.checked); reportCommit("notifications", e.target.checked); }} />}
          label="Notifications"
        />
        <Billing />
        <Volume />
        <PriceRange />
        <ShipDate />
      </Stack>
    </LocalizationProvider>
  );
}

createRoot(document.getElementById("root")).render(<App />);
